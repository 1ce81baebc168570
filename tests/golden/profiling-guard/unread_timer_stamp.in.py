# settings: site_lines=11
import time

import torch


class Timer:
    """A timer whose reading nothing reads: skipping it while compiling changes nothing shown."""

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def step(x):
    with Timer():
        y = x * 2
    return y
