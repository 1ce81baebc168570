# settings: assume_compiled=true unsafe_fixes=true
# Tests already behind the compiling test (a second run, or written so by hand); an elif is left alone.
import torch


def kernel(x1, x2, mask):
    x1_eq_x2 = not torch.compiler.is_compiling() and torch.equal(x1, x2)
    if mask is not None and (not torch.compiler.is_compiling() and torch.all(mask == 1)):
        mask = None
    if mask is None:
        pass
    elif torch.all(mask == 0):
        mask = None
    return x1_eq_x2, mask
