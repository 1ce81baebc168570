"""A program whose call runs its own backward: it needs grad, which an inference run has not."""

import torch
import torch.nn as nn

model = nn.Linear(4, 1)


def step(x):
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss


def my_model_function():
    return step


def GetInput():
    return torch.randn(2, 4)
