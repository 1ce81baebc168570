# settings: unsafe_fixes=true assume_compiled=true
# call: step(torch.tensor(float("inf"))); step(torch.tensor(0.5))
import torch


def step(dt):
    # torchdiffeq's adaptive step: a step size that is not finite falls back to the smallest.
    if not torch.isfinite(dt):
        dt = torch.tensor(1e-3)
    return dt.clamp(1e-3, 1.0)
