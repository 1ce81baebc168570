import torch

CALLS = 0


def counted(x):
    global CALLS
    CALLS += 1
    torch._dynamo.graph_break()
    return x + 1


@torch.compile
def run(x):
    return counted(x)
