import torch


@torch.compile
def fn(x):
    try:
        y = x + 1
    except KeyError:
        raise
    torch._dynamo.graph_break()
    y = y - 1
    return y
