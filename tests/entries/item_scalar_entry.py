"""`.item()` under torch.compile's default: it breaks there, while fullgraph=True compiles only
because it turns capture_scalar_outputs on by itself."""

import torch


def f(x):
    s = x.sum().item()
    return x * s


def my_model_function():
    return f


def GetInput():
    return torch.randn(4)
