# settings: unsafe_fixes=true
import torch


@torch.compile
def normalize(x: torch.Tensor, reason: str):
    if x.sum() == 0:
        raise ValueError(reason)
    return x / x.sum()
