# settings: unsafe_fixes=true
import torch


@torch.compile
def padding_mask(x: torch.Tensor, y):
    mask = x.eq(1)
    if x.sum() < 0:
        mask = None
    return mask
