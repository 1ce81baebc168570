import time

import torch
from torch import nn

START = time.monotonic()


class Throttled(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.last_seen = time.monotonic()

    def forward(self, x):
        # A timestamp kept on the module may decide elsewhere (a rate limit): not a timer.
        self.last_seen = time.monotonic()
        return self.proj(x)


@torch.compile
def since_start(x):
    # A duration from a reading made elsewhere would not read 0 while compiling: left alone.
    waited = time.monotonic() - START
    return x * 2, waited


model = torch.compile(Throttled())
