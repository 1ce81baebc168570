# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    for i, s in ((0, 1.0), (1, 0.5)):
        x = x * s + i
        torch._dynamo.graph_break()
    return x
