# settings: unsafe_fixes=true
import torch


@torch.compile
def step(x: torch.Tensor):
    if x.sum() > 0:
        x = x * 2
        y = x + 1
    else:
        x = x - 1
        y = x * 3
    return x, y
