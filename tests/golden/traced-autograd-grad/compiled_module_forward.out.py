# A module the file compiles, whose forward takes the gradient of an energy with respect to its
# own parameters (a gradient-norm regulariser); the parameters bound to a name first.
import torch
from torch import nn


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


class Regularised(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Softplus(), nn.Linear(8, 1))

    def forward(self, x):
        with torch.enable_grad():
            energy = self.net(x).sum()
            params = self.net.parameters()
            grads = _autograd_grad(energy, list(params), create_graph=True)
        return energy + sum(g.square().sum() for g in grads)


model = torch.compile(Regularised())
