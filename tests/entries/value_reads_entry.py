"""Breaks on reading tensor values into Python: `.item()` (GB0124), a boolean mask and `nonzero`
(GB0036). The Dynamo capture settings take each into the graph."""

import torch
from torch import nn


class Normalize(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        kept = x[x > 0]
        idx = torch.nonzero(x > 0.5)
        return x / scale, kept.sum(), idx.shape[0] * torch.ones(1)


def my_model_function():
    return Normalize()


def GetInput():
    return torch.linspace(-1, 1, 8)
