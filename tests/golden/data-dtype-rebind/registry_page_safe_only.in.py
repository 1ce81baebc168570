# settings: unsafe_fixes=false
# Unsafe: without --unsafe-fixes the file is unchanged.
import torch


@torch.compile(fullgraph=True)
def fn(x):
    x.data = x.data.to(torch.int32)  # dtype change via .data
    return x + 1
