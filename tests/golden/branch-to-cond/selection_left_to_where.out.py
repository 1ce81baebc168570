# settings: unsafe_fixes=true select=branch-to-where,branch-to-cond
import torch


@torch.compile
def pick(x):
    peak = torch.max(x)
    out = torch.where(peak > 1, x / peak, x)
    return out
