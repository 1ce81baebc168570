# settings: site_lines=12 data_dependent_lines=12
import torch
from torch import nn


def guarded_step(func, t0, t1, y):
    """One solver step that runs the vector field, the model's real work (torchdyn's and
    torchdiffeq's steppers): running it eagerly would take that work out of the graph, so the
    data-dependent branch is left to the other rules."""
    dt = t1 - t0
    f = func(t0, y)
    if dt < 0:
        return y - dt.abs() * f
    return y + dt * f


class ODEBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.field = nn.Linear(dim, dim)

    def forward(self, y, t):
        for t0, t1 in zip(t[:-1], t[1:]):
            y = guarded_step(lambda t, y: torch.tanh(self.field(y)), t0, t1, y)
        return y


block = torch.compile(ODEBlock(3))
