"""The only I/O of a compiled forward: a checkpoint of a tensor written in place afterwards, and a
print of a value."""

import atexit
import os
import tempfile

import torch
import torch.nn as nn

CHECKPOINT = os.path.join(tempfile.gettempdir(), f"graphweld_deferred_io_{os.getpid()}.pt")
# Removed when the process ends: the test's runs leave nothing behind.
atexit.register(lambda: os.path.exists(CHECKPOINT) and os.remove(CHECKPOINT))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        torch.save(h, CHECKPOINT)
        h.mul_(2)
        print("hidden", h.sum())
        return h.relu()


def my_model_function():
    return Model()


def GetInput():
    return torch.randn(2, 4)
