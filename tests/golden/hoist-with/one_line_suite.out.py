import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Ctx():
        x = x + 1
    torch._dynamo.graph_break()
    with Ctx():
        x = x * 2
    return x
