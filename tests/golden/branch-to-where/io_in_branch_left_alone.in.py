# settings: unsafe_fixes=true
import torch


@torch.compile
def pick(x):
    total = x.sum()
    if total > 0:
        out = x.nonzero()
    else:
        out = x
    if total < 0:
        print("negative")
        out = x + 1
    if total == 0:
        raise ValueError("zero")
    mask = x > 0
    if total > 1:
        picked = x[mask]
    else:
        picked = x
    return out, picked
