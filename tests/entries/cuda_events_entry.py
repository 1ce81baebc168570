"""Times a stage with CUDA events and prints it: the compiled run raises (both events must be
recorded). Needs a CUDA device."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(64, 64)
        self.head = nn.Linear(64, 2)

    def forward(self, x):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        h = self.encoder(x).relu()
        end.record()
        torch.cuda.synchronize()
        print(f"encoder: {start.elapsed_time(end):.3f} ms")
        return self.head(h)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(16, 64)
