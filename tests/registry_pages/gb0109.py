import torch


@torch.compile(fullgraph=True)
def fn(x):
    return x + sum(x.tolist())


print(fn(torch.arange(4.0)))
