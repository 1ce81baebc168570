import torch


@torch.compile(fullgraph=True)
def fn(x):
    param = torch.nn.Parameter(torch.randn_like(x))
    return param, param + x


torch.manual_seed(0)
param, total = fn(torch.ones(2, 2))
print(type(param).__name__, param.detach(), total.detach())
