# call: bound(torch.tensor([float("inf"), float("nan")])); bound(torch.tensor([float("inf"), 1.0]))
import torch


@torch.compile
def bound(h):
    h = h * 2
    if h.isinf().any() and h.isnan().any():
        h = h.clamp(-1e4, 1e4)
    return h
