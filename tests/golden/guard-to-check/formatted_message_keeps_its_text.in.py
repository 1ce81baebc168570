# settings: unsafe_fixes=true assume_compiled=true
# call: step(torch.tensor(0.5), torch.tensor(0.1))
import torch


def step(t0: torch.Tensor, dt: torch.Tensor):
    # torchdiffeq's adaptive step: the message formats the value the check is about.
    assert t0 + dt > t0, "underflow in dt {}".format(dt.item())
    if torch.isnan(dt):
        raise ValueError("step size is %s" % dt)
    return t0 + dt
