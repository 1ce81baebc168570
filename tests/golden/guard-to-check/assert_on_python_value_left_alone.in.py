# settings: unsafe_fixes=true
import torch


@torch.compile
def observe(x: torch.Tensor, flag):
    assert flag, "a Python flag"
    assert x.numel() > 0 and flag
    assert x.sum() > 0, "not positive: " + str(x)
    return x * 2
