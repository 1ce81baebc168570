"""Layers dropped in training, in three spellings: inline, a draw read with `.item()` and a draw
from Python's `random`, each in a layer loop (the first also prints), and a helper of the user's. Compiled in training, the
forward's frame is skipped (the comparison of the draw, and Python's draw itself, break in the
loop), even though the probabilities are 0, as most configs leave them."""

import random

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, layerdrop=0.0, drop_path_rate=0.0):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))
        self.blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))
        self.heads = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))
        self.layerdrop = layerdrop
        self.drop_path_rate = drop_path_rate

    def _skip_head(self):
        return self.training and torch.rand([]) < self.layerdrop

    def forward(self, x):
        for index, layer in enumerate(self.layers):
            if self.training and torch.rand(1).item() < self.layerdrop:
                continue
            x = layer(x).tanh()
            print("layer", index)
        for block in self.blocks:
            if self.training and random.random() < self.drop_path_rate:
                continue
            x = x + block(x)
        for head in self.heads:
            if self._skip_head():
                continue
            x = head(x).relu()
        return x.sum(dim=-1)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
