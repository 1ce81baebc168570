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
        torch._dynamo.graph_break()  # graphweld: ignore[hoist-with]
        return x + 1
