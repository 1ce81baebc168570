# call: normalize(torch.arange(4.0), eps=1e-3)
import torch


def normalize(x, *, eps=1e-5):
    """Scale x to unit norm."""
    norm = _normalize_part1(x)
    print("norm before scaling:", norm.item())
    return _normalize_part2(eps, norm, x)


@torch.compile
def _normalize_part1(x):
    norm = x.norm()
    return norm


@torch.compile
def _normalize_part2(eps, norm, x):
    return x / (norm + eps)
