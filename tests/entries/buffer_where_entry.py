"""A buffer chosen by a tensor's value, registered again in each branch: GraphMend's [Where] form,
which branch-to-where writes as `register_buffer(name, torch.where(...))`."""

import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("base", torch.linspace(0.5, 2.0, 4), persistent=False)
        self.register_buffer("scale", torch.ones(4), persistent=False)

    def forward(self, x):
        if x.abs().max() > 1.0:
            self.register_buffer("scale", self.base * 2, persistent=False)
        else:
            self.register_buffer("scale", self.base / 2, persistent=False)
        return x * self.scale


def my_model_function():
    return Scaled()


def GetInput():
    return torch.randn(2, 4) * 3
