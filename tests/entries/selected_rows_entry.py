"""Rows a mask selects, computed and written back: one network per chemical element added back
to the atoms of that element (TorchANI's `ANINetworks`, by `nonzero` and `index_add_`), and a
mixture of experts that runs each expert on the tokens routed to it (`output[mask] = ...`), each
behind a test that the selection is not empty. The selection's size is known only from the data
(GB0036) and the test decides on it (GB0170): Dynamo breaks at each."""

import torch
from torch import nn


class AtomicNetworks(nn.Module):
    def __init__(self, num_elements=3, aev_dim=6):
        super().__init__()
        self.atomics = nn.ModuleDict(
            {str(i): nn.Sequential(nn.Linear(aev_dim, 8), nn.CELU(0.1), nn.Linear(8, 1)) for i in range(num_elements)}
        )

    def forward(self, elem_idxs, aevs):
        flat_elem_idxs = elem_idxs.flatten()
        aev = aevs.flatten(0, 1)
        scalars = aev.new_zeros(flat_elem_idxs.shape + (1,))
        for i, m in enumerate(self.atomics.values()):
            selected_idxs = (flat_elem_idxs == i).nonzero().view(-1)
            if selected_idxs.shape[0] > 0:
                input_ = aev.index_select(0, selected_idxs)
                scalars.index_add_(0, selected_idxs, m(input_).view(-1, 1))
        return scalars.view(elem_idxs.shape[0], elem_idxs.shape[1]).sum(dim=1)


class Experts(nn.Module):
    def __init__(self, dim=6, num_experts=3):
        super().__init__()
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_experts)])

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        indices = self.router(flat).argmax(-1)
        output = torch.zeros_like(flat)
        for i in range(len(self.experts)):
            mask = indices == i
            if mask.any():
                output[mask] = self.experts[i](flat[mask])
        return output.view(x.shape)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = Experts()
        self.atomic = AtomicNetworks()

    def forward(self, elem_idxs, aevs):
        return self.atomic(elem_idxs, aevs + self.mix(aevs))


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    return torch.tensor([[0, 1, 2, 1], [2, 1, 0, 0]]), torch.randn(2, 4, 6)
