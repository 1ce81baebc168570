import torch


@torch.compile
def drop_path(x, rate):
    keep = torch.rand(())
    if (rate > 0 and rate > keep) or x.sum() == 0:
        return torch.zeros_like(x)
    return x
