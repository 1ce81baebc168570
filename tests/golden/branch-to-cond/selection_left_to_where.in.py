# settings: unsafe_fixes=true select=branch-to-where,branch-to-cond
import torch


@torch.compile
def pick(x):
    peak = torch.max(x)
    if peak > 1:
        out = x / peak
    else:
        out = x
    return out
