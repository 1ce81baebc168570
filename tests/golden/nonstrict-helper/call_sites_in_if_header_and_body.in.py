import torch


def g(x):
    torch._dynamo.graph_break()
    return x > 0


@torch.compile
def f(x):
    if g(x).all():
        x = g(x) * x
    return x


print(g(torch.ones(1)))
