# settings: unsafe_fixes=true
import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Scope() as scope:
        y = x + 1
    torch._dynamo.graph_break()
    with Scope() as scope:
        z = y * id(scope)
    return z
