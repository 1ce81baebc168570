import torch


@torch.compile(fullgraph=True)
def fn(x):
    parts = [x, x * 2, x * 0.5]
    parts.sort(key=lambda t: t.sum())  # key is a tensor -> non-constant
    return parts[0]


print(fn(torch.arange(3.0)))
