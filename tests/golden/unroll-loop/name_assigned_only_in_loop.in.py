# call: fn(torch.ones(3))
import torch


@torch.compile
def fn(x):
    total = torch.zeros_like(x)
    for i in range(3):
        if i > 0:
            total = total + previous
        previous = x * i
        torch._dynamo.graph_break()
        last = previous.sum()
    return total, last
