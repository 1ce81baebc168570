# settings: unsafe_fixes=true assume_compiled=true
# call: step(torch.tensor(float("inf"))); step(torch.tensor(0.5))
import torch


def step(dt):
    # torchdiffeq's adaptive step: a step size that is not finite falls back to the smallest.
    dt = torch.where(torch.logical_not(torch.isfinite(dt)), torch.tensor(1e-3), dt)
    return dt.clamp(1e-3, 1.0)
