import torch


@torch.compile
def repair(h, low):
    if torch.isinf(h).any():
        print("inf found")
        h = torch.clamp(h, min=-1e4, max=1e4)
    if torch.isinf(h).any():
        h = torch.clamp(h, min=low)
    if torch.isinf(h).any():
        y = torch.clamp(h, min=-1e4, max=1e4)
    if torch.isinf(h).any():
        h = torch.clamp(h, min=-1e4, max=1e4)
    else:
        h = h + 1
    if torch.isinf(h).any() and h.sum() > 0:
        h = torch.clamp(h, min=-1e4, max=1e4)
    return h
