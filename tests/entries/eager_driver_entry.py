"""An eager driver that prints between calls to a compiled core: it runs eagerly as written, so
there is nothing to fix (the factory's function is not compiled by anyone)."""

import torch


@torch.compile(fullgraph=True)
def core(x):
    return (x.sin() + 1).relu()


def drive(x):
    h = core(x)
    print("after the first step:", h.shape)
    return core(h * 2)


def my_model_function():
    return drive


def GetInput():
    return torch.arange(4.0)
