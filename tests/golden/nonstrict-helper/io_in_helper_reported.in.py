import torch


def noisy(x):
    torch._dynamo.graph_break()
    print("noisy", x.shape)
    return x + 1


@torch.compile
def run(x):
    return noisy(x)
