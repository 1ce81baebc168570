# settings: unsafe_fixes=true
# call: scale(torch.ones(3)); scale(torch.full((2,), 4.0))
import torch


@torch.compile
def scale(x):
    n = x.sum().item()
    if n > 10:
        raise ValueError("too large")
    if x.max().item() < 0:
        raise RuntimeError
    return x * n
