# settings: unsafe_fixes=true
import torch


@torch.compile
def step(model, x):
    total = torch.sum(x)
    if total > 0:
        out = model(x)
    else:
        out = x
    if total < 0:
        print("negative")
        out = x + 1
    else:
        out = x - 1
    if total == 0:
        out = x * 2
        extra = x + 1
    else:
        out = x
    return out, extra
