import torch
from torch._dynamo import graph_break


class Timer:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Timer():
        # the no_grad block is split too, so the break leaves both
        with torch.no_grad():
            x = x + 1
            graph_break()
            x = x * 2
        x = x - 1
    return x
