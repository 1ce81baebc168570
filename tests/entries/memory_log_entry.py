"""Allocator statistics in its logs (on CPU they read 0, and Dynamo breaks on them as on CUDA)."""

import logging

import torch
from torch import nn

log = logging.getLogger("memory_log_entry")


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        h = self.encoder(x).relu()
        log.warning("after the encoder: %d bytes allocated", torch.cuda.memory_allocated())
        peak = torch.cuda.max_memory_allocated()
        print(f"peak {peak / 2**20:.1f} MiB")
        return self.head(h)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
