# settings: unsafe_fixes=true
# call: normalize(torch.ones(3)); normalize(torch.arange(1.0, 4.0))
import torch


@torch.compile
def normalize(x: torch.Tensor):
    if torch.isnan(x).any():
        raise RuntimeError("input has NaN")
    if x.min() < 0:
        raise ValueError
    return x / x.sum()
