"""A helper that breaks the graph, called from a compiled forward: Dynamo breaks in the helper and
again in its caller, unless `nested_graph_breaks` lets it resume inside the helper."""

import torch
from torch import nn


def scaled(x):
    x = x * 2
    torch._dynamo.graph_break()
    return x + 1


class Net(nn.Module):
    def forward(self, x):
        return scaled(x).cos()


def my_model_function():
    return Net()


def GetInput():
    return torch.linspace(-1, 1, 8)
