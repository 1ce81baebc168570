"""Reads a tensor into NumPy by DLPack and never brings it back: the compiled run raises, and no
rule moves a one-way export into a custom op."""

import numpy as np
import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        peak = np.from_dlpack(x).max()
        return x / float(peak)


def my_model_function():
    return Scale()


def GetInput():
    return torch.rand(4, 8) + 1
