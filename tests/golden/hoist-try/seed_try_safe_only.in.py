import torch


@torch.compile
def fn(x):
    # the handler falls through: without --unsafe-fixes this stays as it is
    try:
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1
    except Exception as e:
        pass
