# settings: select=ALL
import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Ctx():
        try:
            x = x + 1
        except ValueError:
            raise
    torch._dynamo.graph_break()
    with Ctx():
        try:
            x = x * 2
        except ValueError:
            raise
    return x
