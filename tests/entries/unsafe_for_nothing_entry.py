"""A break the run sees (an explicit one inside a `with`), and a print in a helper the run never
calls: guarding the print is unsafe and removes no break."""

import contextlib

import torch
import torch.nn as nn


@contextlib.contextmanager
def stage(name):
    yield name


def dump(h):
    print("hidden", h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.verbose = False

    def forward(self, x):
        h = self.linear(x)
        with stage("mix"):
            h = h.relu()
            torch._dynamo.graph_break()
            h = h * 2
        if self.verbose:
            dump(h)
        return h


def my_model_function():
    return Model()


def GetInput():
    return torch.randn(2, 4)
