# call: fn(torch.ones(3))
import torch


@torch.compile
def fn(x):
    def _loop_body(scale):
        nonlocal x
        scaled = x * scale  # a fresh temporary in every iteration
        torch._dynamo.graph_break()
        x = scaled + 1
    _loop_body(0.5)
    _loop_body(2.0)
    return x
