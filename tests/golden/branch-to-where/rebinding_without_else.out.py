# settings: unsafe_fixes=true
# call: damp(torch.ones(3), torch.ones(3)); damp(-torch.ones(3), torch.ones(3))
import torch


@torch.compile
def damp(x: torch.Tensor, y):
    y = y * 2
    y = torch.where(x.sum() < 0, y - x, y)
    return y
