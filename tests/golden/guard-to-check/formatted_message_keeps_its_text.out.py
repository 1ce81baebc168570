# settings: unsafe_fixes=true assume_compiled=true
# call: step(torch.tensor(0.5), torch.tensor(0.1))
import torch


def step(t0: torch.Tensor, dt: torch.Tensor):
    # torchdiffeq's adaptive step: the message formats the value the check is about.
    torch._assert_async(t0 + dt > t0, "underflow in dt {}")
    torch._assert_async(torch.logical_not(torch.isnan(dt)), "step size is %s")
    return t0 + dt
