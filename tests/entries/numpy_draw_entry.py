"""A training step that masks time steps at random with NumPy, as SpecAugment does in speech
models, and marks its input as requiring grad (which skips the frame). Compiled, Dynamo draws
`np.random` from torch's generator, so once the frame compiles its masks differ from eager's."""

import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        hidden = x * 1.0
        if self.training:
            hidden.requires_grad = True
        keep = np.random.rand(x.shape[0], x.shape[1]) > 0.3
        hidden = hidden * torch.from_numpy(keep).to(hidden.dtype)[..., None]
        return self.proj(hidden).sum(dim=1)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(2, 6, 8)
