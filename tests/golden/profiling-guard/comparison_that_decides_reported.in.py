import time

import torch


@torch.compile
def stage(x):
    # The same comparison, here deciding what is returned: a decision, left as it is.
    t0 = time.perf_counter()
    y = x.relu()
    elapsed = time.perf_counter() - t0
    print(f"relu: {elapsed} s, ok={elapsed >= 0}")
    if elapsed > 1.0:
        return y * 0
    return y
