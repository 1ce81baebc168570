# settings: unsafe_fixes=true
import torch


@torch.compile
def normalize(x: torch.Tensor):
    if x.sum() == 0:
        raise ValueError("empty")
    else:
        x = x + 1
    if x.sum() < 0:
        print("negative")
        raise ValueError("negative")
    return x
