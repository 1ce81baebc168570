# settings: unsafe_fixes=true
# call: step(torch.ones(3)); step(-torch.ones(3))
import torch


@torch.compile
def step(x: torch.Tensor):
    y = torch.where(x.sum() > 0, x + 1, x * 3)
    x = torch.where(x.sum() > 0, x * 2, x - 1)
    return x, y
