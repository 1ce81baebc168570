# settings: unsafe_fixes=true
import numpy as np
import math
import torch
from torch import nn


class Head(nn.Module):
    """A classifier head that flattens with `np.prod` of the feature shape (a common PyTorch idiom)."""

    def __init__(self, features=(2, 3, 4), classes=5):
        super().__init__()
        self.linear = nn.Linear(int(np.prod(features)), classes)

    def forward(self, x):
        flat = x.reshape(x.shape[0], math.prod(x.shape[1:]))
        return self.linear(flat)


model = torch.compile(Head())
