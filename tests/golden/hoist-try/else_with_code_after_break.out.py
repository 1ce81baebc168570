import torch


@torch.compile
def fn(x):
    try:
        y = x + 1
    except KeyError:
        raise
    torch._dynamo.graph_break()
    try:
        y = y * 3
    except KeyError:
        raise
    else:
        y = y - 1
    return y
