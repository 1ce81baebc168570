import logging
import time

import torch

log = logging.getLogger(__name__)


@torch.compile
def stage(x):
    # The comparison is only printed (an f-string) or logged: a report, not a decision.
    t0 = time.perf_counter()
    y = x.relu()
    elapsed = time.perf_counter() - t0
    print(f"relu: {elapsed * 1000:.3f} ms, ok={elapsed >= 0}")
    slow = "slow" if elapsed > 1.0 else "fast"
    log.info("relu was %s", slow)
    return y
