# settings: unsafe_fixes=true
import torch


@torch.compile
def normalize(x: torch.Tensor, n: int):
    if x.shape[0] != n:
        raise ValueError("shape guard the graph needs")
    if n < 0:
        raise ValueError("negative")
    return x / n
