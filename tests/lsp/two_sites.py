import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def scoped(x):
    with Ctx():
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2


@torch.compile
def looped(x):
    for scale in (1.0, 2.0):
        x = x * scale
        torch._dynamo.graph_break()
    return x
