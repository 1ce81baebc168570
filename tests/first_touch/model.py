import logging
import time
import warnings

import numpy as np
import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class Timer:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


def scale_of(x):
    return float(np.sqrt(x.abs().mean().item()))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 16)
        self.layers = nn.ModuleList([nn.Linear(16, 16) for _ in range(3)])
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        with Timer("embed"):
            h = self.embed(x)
        for i, layer in enumerate(self.layers):
            h = torch.relu(layer(h))
            print("layer", i, h.mean())
            logger.info("layer %d done", i)
        if h.sum() > 0:
            h = h * 2
        else:
            h = h - 1
        if h.shape[0] > 100:
            warnings.warn("big batch")
        return self.head(h) * scale_of(h)
