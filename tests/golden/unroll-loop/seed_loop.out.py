# call: fn(torch.arange(3.0))
import torch


@torch.compile
def fn(x):
    def _loop_body(i):
        nonlocal x
        x = x + 1
        if i == 3:
            torch._dynamo.graph_break()
    _loop_body(0)
    _loop_body(1)
    _loop_body(2)
    _loop_body(3)
    _loop_body(4)
    return x
