# call: fn(torch.ones(3))
import torch


@torch.compile
def fn(x):
    for scale in (0.5, 2.0):
        scaled = x * scale  # a fresh temporary in every iteration
        torch._dynamo.graph_break()
        x = scaled + 1
    return x
