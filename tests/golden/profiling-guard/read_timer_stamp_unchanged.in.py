# settings: site_lines=11
import time

import torch


class Timer:
    """`start` is read (the elapsed time is kept on the timer): the reading reaches something."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.start
        return False


@torch.compile
def step(x):
    y = x * 2
    return y
