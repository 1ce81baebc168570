# settings: unsafe_fixes=true assume_compiled=true
# Top-k experts, each run on the tokens that route to it in any slot and added back weighted by
# the router (a tutorial's MoE layer).
import torch
from torch import nn


class MixtureOfExperts(nn.Module):
    def __init__(self, d_model: int, num_experts: int = 4, top_k: int = 2):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.experts = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(num_experts)])
        self.router = nn.Linear(d_model, num_experts)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_flat = x.view(-1, x.shape[-1])
        top_k_probs, top_k_indices = torch.topk(self.router(x_flat).softmax(-1), self.top_k, dim=-1)
        output = torch.zeros_like(x_flat)
        for expert_idx in range(self.num_experts):
            mask = (top_k_indices == expert_idx).any(dim=-1)
            expert_input = x_flat
            expert_output = self.experts[expert_idx](expert_input)
            weight = (top_k_probs * (top_k_indices == expert_idx)).sum(-1)
            update = weight[:, None] * expert_output
            mask_rows = mask.view(mask.shape + (1,) * (update.dim() - mask.dim()))
            output.add_(torch.where(mask_rows, update, 0))
        return output.view(x.shape)
