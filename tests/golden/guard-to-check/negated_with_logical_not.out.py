# settings: unsafe_fixes=true
# call: normalize(torch.ones(3)); normalize(torch.arange(1.0, 4.0))
import torch


@torch.compile
def normalize(x: torch.Tensor):
    torch._assert_async(torch.logical_not(torch.isnan(x).any()), "input has NaN")
    torch._assert_async(torch.logical_not(x.min() < 0))
    return x / x.sum()
