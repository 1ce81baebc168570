"""A program that compiles itself with fullgraph=True and fails on `hasattr` of a lazy `map` in a
helper that is not pure: nested_graph_breaks helps only the measurement with fullgraph relaxed."""

import torch

SEEN = []


def helper(x):
    SEEN.append(1)
    parts = map(torch.sin, [x])
    if hasattr(parts, "__len__"):
        return x + 1
    return x * 2


@torch.compile(fullgraph=True)
def f(x):
    y = torch.cos(x)
    z = helper(y)
    return z + y


def my_model_function():
    return f


def GetInput():
    return torch.randn(4)
