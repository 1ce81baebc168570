import torch


@torch.compile
def fn(xs):
    total = 0
    for x in xs:
        try:
            a = x.sin()
        except RuntimeError:
            continue
        torch._dynamo.graph_break()
        try:
            b = a.cos()
        except RuntimeError:
            continue
        torch._dynamo.graph_break()
        try:
            total = total + b
        except RuntimeError:
            continue
    return total
