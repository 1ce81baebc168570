# settings: unsafe_fixes=true site_lines=9
# GB4198's page: a deep copy of the compiled function's input (the run saw the break at line 9).
import copy
import torch


@torch.compile(fullgraph=True)
def fn(x):
    saved = x.detach().clone()
    return x + saved
