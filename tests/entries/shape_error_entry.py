"""A program that raises: the second layer takes 8 features, the first gives 4."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(4, 4)
        self.second = nn.Linear(8, 2)

    def forward(self, x):
        h = self.first(x)
        return self.second(h)


def my_model_function():
    return Model()


def GetInput():
    return torch.randn(2, 4)
