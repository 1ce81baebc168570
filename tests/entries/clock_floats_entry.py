"""A forward that reads the clock before and after a stage and prints the difference: each reading
is a float Dynamo guards on (`t0 == 890.56`), so every call recompiles, and the print breaks."""
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
        t1 = time.perf_counter()
        print("stage a:", t1 - t0)
        return self.b(h)


def my_model_function():
    return Net()


def GetInput():
    return torch.randn(3, 8)
