import copy

import torch


@torch.compile(fullgraph=True)
def fn(x):
    saved = copy.deepcopy(x)
    return x + saved


print(fn(torch.arange(3.0)))
