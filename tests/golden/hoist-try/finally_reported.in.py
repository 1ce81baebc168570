import torch


@torch.compile
def fn(x):
    try:
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 2
    except ValueError:
        raise
    finally:
        x = x - 1
    return x
