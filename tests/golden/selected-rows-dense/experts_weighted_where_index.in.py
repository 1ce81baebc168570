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
            idx = torch.where(choice == e)[0]
            if idx.numel() > 0:
                h = expert(tokens[idx])
                out.index_add_(0, idx, h * weight[idx, None])
        return out
