# settings: unsafe_fixes=true site_lines=8
# The dtype is in a variable: rewritten because the run saw the break at line 8.
import torch


@torch.compile
def cast(x, dtype):
    x = x.detach().to(dtype)
    return x * 3
