"""Times a stage of its forward with a wall-clock pair and prints it (torch 2.13's Dynamo raises
an internal error formatting the time; torch 2.14 breaks the graph)."""

import time

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        start = time.perf_counter()
        h = self.encoder(x).relu()
        print(f"encoder took {time.perf_counter() - start:.4f} s")
        return self.head(h)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
