"""A timer context manager around a stage: Dynamo cannot trace its clock, and cannot resume in
the `with`, so the whole forward runs eagerly."""

import contextlib
import time

import torch
from torch import nn


@contextlib.contextmanager
def timer(name):
    start = time.perf_counter()
    yield
    print(f"{name} took {time.perf_counter() - start:.3f} s")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        with timer("encoder"):
            h = self.encoder(x).relu()
        return self.head(h)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
