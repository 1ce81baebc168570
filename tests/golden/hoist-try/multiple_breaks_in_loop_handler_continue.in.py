import torch


@torch.compile
def fn(xs):
    total = 0
    for x in xs:
        try:
            a = x.sin()
            torch._dynamo.graph_break()
            b = a.cos()
            torch._dynamo.graph_break()
            total = total + b
        except RuntimeError:
            continue
    return total
