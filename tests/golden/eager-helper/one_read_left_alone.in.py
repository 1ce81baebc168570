import torch


def scale_of(x):
    # One read: the break it costs is no more than the disabled call's.
    return x.abs().max().item()


@torch.compile
def normalize(x):
    return x / scale_of(x)
