"""A step through JAX by the DLPack protocol, in one expression."""

import jax
import jax.numpy as jnp
import torch
from torch import nn


class SoftClip(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        return torch.from_dlpack(jnp.tanh(jax.dlpack.from_dlpack(h.detach()))) * 3 + h


def my_model_function():
    torch.manual_seed(0)
    return SoftClip()


def GetInput():
    return torch.randn(4, 8)
