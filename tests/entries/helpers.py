"""Helpers an entry's model calls from another module; nothing in this file compiles anything."""

import inspect

import torch


def checked_scale(x, factor):
    here = inspect.currentframe().f_code.co_name
    if factor <= 0:
        raise ValueError(f"{here}: factor must be positive, got {factor}")
    return x * factor


def leaky(x):
    torch._dynamo.graph_break()
    return torch.where(x > 0, x, x * 0.1)
