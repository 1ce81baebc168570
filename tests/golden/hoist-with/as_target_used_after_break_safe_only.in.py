import torch


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    # without --unsafe-fixes this stays: `scope` would be a new object after the break
    with Scope() as scope:
        y = x + 1
        torch._dynamo.graph_break()
        z = y * id(scope)
    return z
