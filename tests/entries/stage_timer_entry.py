"""A timer Dynamo cannot trace (`time.perf_counter()` in `__enter__`) around an explicit break:
splitting the `with` leaves a timer that still breaks, and Dynamo still skips the rest of the
frame at its `__enter__`."""

import time

import torch
import torch.nn as nn


class StageTimer:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x).relu()
        with StageTimer("mix"):
            h = h * 2
            torch._dynamo.graph_break()
            h = h + 1
        return h


def my_model_function():
    return Model()


def GetInput():
    return torch.randn(2, 4)
