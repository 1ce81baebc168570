# GB0264's page: the compiled function builds a parameter from a random tensor like its input.
import torch


@torch.compile(fullgraph=True)
def fn(x):
    param = torch.nn.Parameter(torch.randn_like(x))
    return param, param + x
