# settings: unsafe_fixes=true assume_compiled=true select=branch-to-where
import torch


def refine(x: torch.Tensor, model):
    # What follows the early return calls a model: computing it on every input could fail or cost.
    if x.sum() == 0:
        return x
    y = model(x)
    return y * 2


def cumulative(x: torch.Tensor):
    # A generator: its `return` ends the iteration, it is not a value to select.
    if x.sum() == 0:
        return x
    yield x
