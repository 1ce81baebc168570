# call: fn(torch.ones(3))
import torch


@torch.compile
def fn(x):
    total = torch.zeros_like(x)
    last: object  # bound in the unrolled loop below
    previous: object  # bound in the unrolled loop below
    def _loop_body(i):
        nonlocal last, previous, total
        if i > 0:
            total = total + previous
        previous = x * i
        torch._dynamo.graph_break()
        last = previous.sum()
    _loop_body(0)
    _loop_body(1)
    _loop_body(2)
    return total, last
