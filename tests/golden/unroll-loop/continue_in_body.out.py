# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    def _loop_body(i):
        nonlocal x
        if i % 2 == 0:
            return
        x = x + i
        torch._dynamo.graph_break()
    _loop_body(0)
    _loop_body(1)
    _loop_body(2)
    _loop_body(3)
    return x
