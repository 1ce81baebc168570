# A module the file compiles, whose forward takes the gradient of an energy with respect to its
# own parameters (a gradient-norm regulariser); the parameters bound to a name first.
import torch
from torch import nn


class Regularised(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Softplus(), nn.Linear(8, 1))

    def forward(self, x):
        with torch.enable_grad():
            energy = self.net(x).sum()
            params = self.net.parameters()
            grads = torch.autograd.grad(energy, params, create_graph=True)
        return energy + sum(g.square().sum() for g in grads)


model = torch.compile(Regularised())
