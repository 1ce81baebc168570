# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    for i in range(2):
        for j in range(2):
            x = x + i * j
            torch._dynamo.graph_break()
        x = x * 2
    return x
