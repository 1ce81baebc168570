import torch


@torch._dynamo.nonstrict_trace
def g(x):
    torch._dynamo.graph_break()
    return x.sin()


@torch.compile
def f(x):
    return g(x) + torch._dynamo.nonstrict_trace(g)(x)
