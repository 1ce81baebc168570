# settings: unsafe_fixes=true assume_compiled=true
# Experts whose tokens are found with torch.where and whose outputs are weighted by the router
# before they are added back.
import torch
from torch import nn


class SparseMoE(nn.Module):
    def __init__(self, dim: int, num_experts: int):
        super().__init__()
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)) for _ in range(num_experts)])

    def forward(self, tokens: torch.Tensor, choice: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            idx_mask = choice == e
            h = expert(tokens)
            update = h * weight[:, None]
            idx_mask_rows = idx_mask.view(idx_mask.shape + (1,) * (update.dim() - idx_mask.dim()))
            out.add_(torch.where(idx_mask_rows, update, 0))
        return out
