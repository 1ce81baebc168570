# settings: unsafe_fixes=true
import torch


@torch.compile
def step(x, training: bool):
    if training:
        scaled = x * 2
        out = scaled + 1
    else:
        out = x - 1
    return out
