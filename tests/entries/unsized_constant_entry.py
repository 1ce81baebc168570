"""A module that keeps a tuple subclass whose `len()` raises (e3nn's `Irreps` does, so that no one
mistakes the count of its entries for the dimension) and hands it to a helper. Dynamo guards the
length of a tuple it reads, the guard calls `len()`, and the compile fails inside Dynamo with an
error that has no message of its own."""

import torch
from torch import nn


class Irreps(tuple):
    def __len__(self):
        raise NotImplementedError

    @property
    def lmax(self):
        return max(tuple.__iter__(self))


def harmonics(irreps, x):
    if isinstance(irreps, Irreps):
        return x * irreps.lmax
    return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.irreps = Irreps.__new__(Irreps, (0, 1, 2))

    def forward(self, x):
        return harmonics(self.irreps, x)


def my_model_function():
    return Model()


def GetInput():
    return torch.ones(2, 3)
