import torch
import torch._dynamo as dynamo


class Scope:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile(mode="default")
def fn(x):
    with Scope("outer") as scope, Scope("inner"):
        y = x * len(scope.name)
    dynamo.graph_break()
    with Scope("outer") as scope, Scope("inner"):
        z = y + 1
    return z
