import torch


def g(x):
    torch._dynamo.graph_break()
    return x > 0


@torch.compile
def f(x):
    if torch._dynamo.nonstrict_trace(g)(x).all():
        x = torch._dynamo.nonstrict_trace(g)(x) * x
    return x


print(g(torch.ones(1)))
