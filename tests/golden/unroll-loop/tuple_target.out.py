# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    def _loop_body(i, s):
        nonlocal x
        x = x * s + i
        torch._dynamo.graph_break()
    _loop_body(0, 1.0)
    _loop_body(1, 0.5)
    return x
