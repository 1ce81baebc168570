import time

import torch


@torch.compile
def poll(x, timeout):
    # A deadline, not a timer: the clock decides when the loop ends, so it is left as it is.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        x = x * 0.5
        if x.abs().max() < 1e-3:
            break
    return x
