# settings: site_lines=23 data_dependent_lines=23
import torch
from torch import nn


class ReverseFunc(nn.Module):
    """The vector field run backwards in time."""

    def __init__(self, base_func):
        super().__init__()
        self.base_func = base_func

    def forward(self, t, y):
        return -self.base_func(-t, y)


def check_inputs(func, y0, t):
    """Normalise the integration times (torchdiffeq's `_check_inputs`): times given in decreasing
    order are integrated forwards with the time and the field negated. The `if` picks Python
    objects (a wrapped field, a flag), which no tensor `where` or `cond` can return."""
    y0 = y0.reshape(-1)
    t_is_reversed = False
    if len(t) > 1 and t[0] > t[1]:
        t_is_reversed = True
    if t_is_reversed:
        t = -t
        func = ReverseFunc(func)
    return func, y0, t


def odeint_euler(func, y0, t):
    func, y, t = check_inputs(func, y0, t)
    solution = [y]
    for t0, t1 in zip(t[:-1], t[1:]):
        y = y + (t1 - t0) * func(t0, y)
        solution.append(y)
    return torch.stack(solution)


class ODEBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.field = nn.Linear(dim, dim)

    def forward(self, y0, t):
        return odeint_euler(lambda t, y: torch.tanh(self.field(y)) * t, y0, t)


block = torch.compile(ODEBlock(3))
