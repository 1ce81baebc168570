# settings: site_lines=22 called_lines=22 disabled_call_lines=22
import torch
from torch import nn


@torch.compiler.disable
def initial_step(func, t0, y0):
    """The first step size, from the field's scale (torchdiffeq's `_select_initial_step`)."""
    scale = float(func(t0, y0).abs().max())
    return torch.tensor(0.1 / max(scale, 1e-6))


class FixedGridSolver:
    """Its step loop runs the vector field, the model's real work: running `integrate` eagerly would
    take all of it out of the graph, so only the eager call breaks."""

    def __init__(self, y0):
        self.y0 = y0

    def integrate(self, func, t):
        solution = [self.y0]
        dt = initial_step(func, t[0], self.y0)
        for t0, t1 in zip(t[:-1], t[1:]):
            y = solution[-1]
            solution.append(y + torch.minimum(dt, t1 - t0) * func(t0, y))
        return torch.stack(solution)


class ODEBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.field = nn.Linear(dim, dim)

    def forward(self, y0, t):
        return FixedGridSolver(y0).integrate(lambda t, y: torch.tanh(self.field(y)), t)


block = torch.compile(ODEBlock(3))
