import torch


@torch.compile
def bump(x):
    y = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    y[0] = 1
    return x, y
