# settings: unsafe_fixes=true assume_compiled=true
# A mixture of experts that runs each expert on the tokens routed to it (a common hand-written
# MoE layer, top-1 routing).
import torch
from torch import nn


class MoE(nn.Module):
    def __init__(self, dim: int, num_experts: int):
        super().__init__()
        self.num_experts = num_experts
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_experts)])

    def forward(self, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        batch_size, seq_len, hidden_dim = x.shape
        x_reshaped = x.view(-1, hidden_dim)
        indices_flat = indices.view(-1)
        output = torch.zeros_like(x_reshaped)
        for i in range(self.num_experts):
            mask = indices_flat == i
            if mask.any():
                # the expert's tokens, through it
                output[mask] = self.experts[i](x_reshaped[mask])
        return output.view(batch_size, seq_len, hidden_dim)
