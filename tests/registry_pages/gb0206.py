import torch


@torch.compile(fullgraph=True)
def fn(x):
    x.requires_grad = True
    return x * 2


x = torch.arange(3.0)
print(fn(x).detach(), x.requires_grad)
