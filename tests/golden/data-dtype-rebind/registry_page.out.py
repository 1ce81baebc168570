# settings: unsafe_fixes=true
# GB0220's page: a dtype change through `.data` in a function compiled with fullgraph=True.
import torch


@torch.compile(fullgraph=True)
def fn(x):
    x = x.detach().to(torch.int32)  # dtype change via .data
    return x + 1
