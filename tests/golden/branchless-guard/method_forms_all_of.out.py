# call: bound(torch.tensor([float("inf"), float("nan")])); bound(torch.tensor([float("inf"), 1.0]))
import torch


@torch.compile
def bound(h):
    h = h * 2
    h = torch.where(h.isinf().any() & h.isnan().any(), h.clamp(-1e4, 1e4), h)
    return h
