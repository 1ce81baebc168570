import torch


@torch.compile
def fn(x, a, b):
    for value in (a, b):
        b = value * 2
        torch._dynamo.graph_break()
        x = x + b
    return x
