"""A forward that times a stage and prints the elapsed time, with a comparison that is only
printed: the clock floats passed into compiled code fail its compile."""

import time

import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 4)

    def forward(self, x):
        t0 = time.perf_counter()
        h = self.a(x).relu()
        elapsed = time.perf_counter() - t0
        print(f"stage a: {elapsed * 1000:.3f} ms, ok={elapsed >= 0}")
        return self.b(h)


def my_model_function():
    return Net()


def GetInput():
    return torch.randn(3, 8)
