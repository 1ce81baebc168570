"""A pure helper Dynamo cannot trace (it reads its own frame, as logging helpers do) that takes an
optional scale defaulting to `None`, called without it from a compiled forward."""

import inspect

import torch
from torch import nn


def scaled_tanh(x, scale=None):
    caller = inspect.currentframe()
    del caller
    if scale is None:
        scale = 2.0
    return torch.tanh(x) * scale


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return scaled_tanh(self.linear(x)).sum()


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    return (torch.randn(3, 4),)
