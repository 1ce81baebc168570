import torch


@torch.compile
def export_twice(x):
    capsule = torch.utils.dlpack.to_dlpack(x)
    y = torch.utils.dlpack.from_dlpack(capsule)
    keep = capsule
    return y, keep
