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
            selected_idxs_mask = flat_elem_idxs == i
            input_ = aev
            update = m(input_).view(-1, self.out_dim)
            selected_idxs_mask_rows = selected_idxs_mask.view(selected_idxs_mask.shape + (1,) * (update.dim() - selected_idxs_mask.dim()))
            scalars.add_(torch.where(selected_idxs_mask_rows, update, 0))
        return scalars.view(elem_idxs.shape[0], elem_idxs.shape[1], self.out_dim).sum(dim=1)
