"""A script that configures logging at DEBUG and logs a device statistic in the forward: the
compiled runs add records of the compiler's own (inductor's file locks), which are not the
program's."""

import logging

import torch

logging.basicConfig(level=logging.DEBUG)
log = logging.getLogger(__name__)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 4)

    def forward(self, x):
        h = self.a(x).relu()
        log.debug("after a: %d bytes", torch.cuda.memory_allocated())
        return self.b(h)


def my_model_function():
    return Net()


def GetInput():
    return torch.randn(3, 8)
