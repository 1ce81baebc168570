"""A model in its own module, compiled by nobody in this file: only --entry finds its breaks."""
import torch
from torch import nn


class Scope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        with Scope():
            h = self.linear(x)
            torch._dynamo.graph_break()
            h = h.relu()
        for scale in (1.0, 0.5):
            h = h * scale
            torch._dynamo.graph_break()
        return h
