# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    def _loop_body_2(i):
        nonlocal x
        def _loop_body(j):
            nonlocal x
            x = x + i * j
            torch._dynamo.graph_break()
        _loop_body(0)
        _loop_body(1)
        x = x * 2
    _loop_body_2(0)
    _loop_body_2(1)
    return x
