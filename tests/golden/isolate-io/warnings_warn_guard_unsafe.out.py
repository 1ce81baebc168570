# settings: unsafe_fixes=true
import warnings

import torch


def helper(x):
    if x.dtype == torch.float64:
        if not torch.compiler.is_compiling():
            warnings.warn("float64 input is slow", stacklevel=2)
    return x.float()


@torch.compile
def fn(x):
    return helper(x) * 2
