# settings: unsafe_fixes=true
import time

import torch


class Stopwatch:
    def __enter__(self):
        self.start = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.seconds = time.monotonic() - self.start


@torch.compile
def step(x):
    with Stopwatch() as watch:
        y = x * 2
    return y, watch.seconds
