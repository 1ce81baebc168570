import torch


@torch.compile
def fn(x):
    try:
        y = x + 1
        torch._dynamo.graph_break()
    except KeyError:
        raise
    else:
        y = y - 1
    return y
