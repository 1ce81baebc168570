# GB0206's page: the compiled function marks its input as requiring grad.
import torch


def fn(x):
    x.requires_grad = True
    return _fn_part1(x)


@torch.compile(fullgraph=True)
def _fn_part1(x):
    return x * 2
