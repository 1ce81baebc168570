# settings: unsafe_fixes=true
# call: step(torch.ones(3)); step(-torch.ones(3))
import torch


@torch.compile
def step(x: torch.Tensor):
    if x.sum() > 0:
        y = x + 1
        x = x * 2
    else:
        y = x * 3
        x = x - 1
    return x, y
