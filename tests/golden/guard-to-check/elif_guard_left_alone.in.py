# settings: unsafe_fixes=true select=guard-to-check,branchless-guard,branch-to-where,branch-to-cond
import torch


@torch.compile
def check(x: torch.Tensor, mode: str):
    if mode == "sum":
        x = x.sum()
    elif x.min() < 0:
        raise ValueError("negative input")
    if mode == "clamp":
        x = x * 2
    elif torch.isinf(x).any():
        x = torch.clamp(x, min=-1e4, max=1e4)
    if mode == "pick":
        x = x + 1
    elif x.sum() > 0:
        x = x * 2
    else:
        x = x - 1
    return x
