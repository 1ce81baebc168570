# settings: unsafe_fixes=true assume_compiled=true
# `.any()` guarding work that changes values where the mask selects nothing, or that keeps a
# temporary for later, is a real decision: left alone (branch-to-where or branch-to-cond may take it).
import torch


def shift(x: torch.Tensor, m: torch.Tensor):
    hit = x > 0
    if hit.any():
        x = x + 1
    if hit.any():
        y = torch.where(hit, x, 0.0)
        x = torch.where(hit, y, x)
    if m.any():
        x = torch.where(hit, -x, x)
    return x, y
