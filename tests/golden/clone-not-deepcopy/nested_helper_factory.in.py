# settings: unsafe_fixes=true
# A helper nested in a compiled function copies a tensor its function makes (a factory's
# result): known to be a tensor without a run.
import copy

import torch


@torch.compile
def smooth(x):
    def step(values):
        start = torch.zeros_like(values)
        kept = copy.deepcopy(start)
        return values * 0.5 + kept

    return step(step(x))
