# GB0206's page: the compiled function marks its input as requiring grad.
import torch


@torch.compile(fullgraph=True)
def fn(x):
    x.requires_grad = True
    return x * 2
