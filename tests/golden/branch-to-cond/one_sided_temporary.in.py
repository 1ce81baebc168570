# settings: unsafe_fixes=true
# call: norm(torch.ones(2, 3)); norm(torch.zeros(2, 3))
import torch


@torch.compile
def norm(x):
    if torch.any(x > 0):
        length = torch.sqrt(torch.sum(x * x, -1, keepdim=True))
        out = x / length
    else:
        out = torch.zeros_like(x)
    return out
