import torch


def check(x):
    torch._dynamo.graph_break()
    assert x.dim() == 2


@torch.compile
def run(x):
    check(x)
    return x + 1
