# settings: unsafe_fixes=true
# call: combine(torch.ones(3), torch.arange(3.0)); combine(-torch.ones(3), torch.arange(3.0))
import torch


@torch.compile
def combine(x, y):
    total = torch.sum(x)
    if total > 0:
        scaled = x * 2
        out = scaled + y
    else:
        out = x - y.mean()
    return out * 3
