# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    for i in range(4):
        if i % 2 == 0:
            continue
        x = x + i
        torch._dynamo.graph_break()
    return x
