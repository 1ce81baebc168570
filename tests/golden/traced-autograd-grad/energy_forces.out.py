# settings: assume_compiled=true
# An interatomic potential's forces as the negative gradient of its energy in `forward` (the form
# of SchNetPack's and NequIP's force outputs), `grad` imported from `torch.autograd` and torch not
# imported at all; `grad_outputs` passed as its default, None, in one call.
from torch import nn
from torch.autograd import grad
import torch


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


class Potential(nn.Module):
    def __init__(self, representation, readout):
        super().__init__()
        self.representation = representation
        self.readout = readout

    def forward(self, positions, species):
        energy = self.readout(self.representation(positions, species)).sum(-1)
        forces = -_autograd_grad(energy.sum(), positions, create_graph=self.training)[0]
        gradient = _autograd_grad(energy.sum(), positions, create_graph=self.training, retain_graph=True)[0]
        return energy, forces, gradient
