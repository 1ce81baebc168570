# settings: unsafe_fixes=true
import torch


@torch.compile
def normalize(x: torch.Tensor, n):
    if x.sum() == 0:
        raise ValueError(f"empty input of {n}")
    return x / x.sum()
