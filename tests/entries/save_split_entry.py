"""The fullgraph guide's Strategy 3 shape: a compiled function that saves a checkpoint between two
computations, handed out by the factory. The program's own `@torch.compile` is what is measured."""

import os

import torch

CHECKPOINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checkpoint.pt")


@torch.compile
def f(x):
    y = x ** 2 / 2
    torch.save(y, CHECKPOINT)
    z = y ** 3 / 6
    return z


def my_model_function():
    return f


def GetInput():
    return torch.arange(4.0)
