# settings: unsafe_fixes=true
import torch


@torch.compile
def pick(x, training: bool, n):
    if training:
        out = x * 2
    else:
        out = x
    if x.shape[0] > n:
        out = out + 1
    return out
