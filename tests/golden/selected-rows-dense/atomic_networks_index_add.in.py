# settings: unsafe_fixes=true assume_compiled=true
# One network per chemical element, run on the atoms of that element and added back, as
# TorchANI's ANINetworks does.
import torch
from torch import nn


class AtomicNetworks(nn.Module):
    def __init__(self, atomics: nn.ModuleDict, out_dim: int = 1):
        super().__init__()
        self.atomics = atomics
        self.out_dim = out_dim

    def forward(self, elem_idxs: torch.Tensor, aevs: torch.Tensor) -> torch.Tensor:
        flat_elem_idxs = elem_idxs.flatten()
        aev = aevs.flatten(0, 1)
        scalars = aev.new_zeros(flat_elem_idxs.shape + (self.out_dim,))
        for i, m in enumerate(self.atomics.values()):
            selected_idxs = (flat_elem_idxs == i).nonzero().view(-1)
            if selected_idxs.shape[0] > 0:
                input_ = aev.index_select(0, selected_idxs)
                scalars.index_add_(0, selected_idxs, m(input_).view(-1, self.out_dim))
        return scalars.view(elem_idxs.shape[0], elem_idxs.shape[1], self.out_dim).sum(dim=1)
