import numpy as np
import torch
from torch import nn


class Squash(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        # NumPy takes the tensor by the DLPack protocol, no capsule.
        arr = np.from_dlpack(h.detach())
        arr = np.tanh(arr) * 2.0
        y = torch.from_dlpack(arr)
        return y + h


model = torch.compile(Squash())
