"""A step through NumPy by the DLPack protocol (no capsule): torch 2.13's compile raises on it."""

import numpy as np
import torch
from torch import nn


class Squash(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        arr = np.from_dlpack(h.detach())
        arr = np.tanh(arr) * 2.0
        y = torch.from_dlpack(arr)
        return y + h


def my_model_function():
    torch.manual_seed(0)
    return Squash()


def GetInput():
    return torch.randn(4, 8)
