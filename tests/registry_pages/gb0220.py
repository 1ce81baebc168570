import torch


@torch.compile(fullgraph=True)
def fn(x):
    x.data = x.data.to(torch.int32)  # dtype change via .data
    return x + 1


print(fn(torch.arange(3.0)))
