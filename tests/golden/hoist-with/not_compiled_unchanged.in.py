import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def eager_only(x):
    # not a compiled region: nothing calls torch.compile on it
    with Ctx():
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1


@torch.compiler.disable
def disabled(x):
    with Ctx():
        print(x)
        return x
