import torch


@torch.compile(fullgraph=True)
def fn(x):
    y = x * 2
    print("doubled", y.shape)
    return y + 1


print(fn(torch.ones(3)))
