# call: fn(torch.ones(2)); fn(torch.ones(2) * 5)
import torch


@torch.compile
def fn(x):
    found = -1
    def _loop_body(i):
        nonlocal found, x
        torch._dynamo.graph_break()
        if i * 2 > 3:
            found = i
            return ("break",)
        x = x + 1
    _flow = _loop_body(0)
    if _flow is None:
        _flow = _loop_body(1)
    if _flow is None:
        _flow = _loop_body(2)
    if _flow is None:
        _flow = _loop_body(3)
    if _flow is None:
        x = x * 0
    return x, found
