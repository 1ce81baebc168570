# GB0264's page: the compiled function builds a parameter from a random tensor like its input.
import torch


def fn(x):
    param = torch.nn.Parameter(torch.randn_like(x))
    return _fn_part1(param, x)


@torch.compile(fullgraph=True)
def _fn_part1(param, x):
    return param, param + x
