# settings: unsafe_fixes=true site_lines=9,12,14,15,16,18,20,22
# Left alone: a value that decides a branch, sizes a tensor, is returned, is formatted, meets only
# a literal, is used in a nested function or a comprehension, or is bound twice; and eager code.
import torch


@torch.compile
def fn(x, scores):
    top = scores.max().item()
    if top > 0:
        x = x * 2
    count = scores.sum().item()
    padded = torch.zeros(int(count))
    best = scores.argmax().item()
    label = f"{scores.min().item()}"
    doubled = scores.mean().item()
    twice = doubled * 2
    inner = scores.std().item()
    scale = lambda t: t * inner
    listed = scores.var().item()
    rows = [row * listed for row in x]
    again = scores.sum().item()
    again = again + 1
    return x, padded, best, label, twice, scale(x), rows, x * again


def eager(x):
    mean = x.mean().item()
    return x - mean
