# settings: unsafe_fixes=true
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

    def forward(self, x):
        with timer("encoder"):
            h = self.encoder(x).relu()
        return h


model = torch.compile(Model())
