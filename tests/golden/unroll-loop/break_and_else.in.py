# call: fn(torch.ones(2)); fn(torch.ones(2) * 5)
import torch


@torch.compile
def fn(x):
    found = -1
    for i in range(4):
        torch._dynamo.graph_break()
        if i * 2 > 3:
            found = i
            break
        x = x + 1
    else:
        x = x * 0
    return x, found
