import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x, flag: bool):
    with Ctx():
        x = x + 1
        if flag:
            torch._dynamo.graph_break()
        return x + 1
