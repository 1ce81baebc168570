# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F
from torch import nn


class MoeBlock(nn.Module):
    """Routed experts plus "zero" experts that pass their tokens through (LongCat-Flash)."""

    def __init__(self, hidden_size=8, routed_experts=3, zero_experts=1, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.num_routed_experts = routed_experts
        self.total_experts = routed_experts + zero_experts
        self.router = nn.Linear(hidden_size, self.total_experts)
        self.gate_up_proj = nn.Parameter(torch.randn(routed_experts, 2 * hidden_size, hidden_size) / 4)
        self.down_proj = nn.Parameter(torch.randn(routed_experts, hidden_size, hidden_size) / 4)

    def forward(self, hidden_states):
        shape = hidden_states.shape
        hidden_states = hidden_states.reshape(-1, shape[-1])
        top_k_weights, top_k_index = torch.topk(torch.softmax(self.router(hidden_states), -1), self.top_k, dim=-1)
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(top_k_index, num_classes=self.total_experts).permute(2, 1, 0)
        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0)
        for expert_idx in range(expert_hit.shape[0]):
            routed = expert_mask[expert_idx].squeeze(0) != 0
            token_idx = torch.arange(routed.shape[1], device=routed.device)
            token_routed = routed.any(0)
            token_weight = (top_k_weights * routed.t()).sum(-1)
            if token_idx.numel() == 0:
                continue
            current_state = hidden_states[token_idx]
            if expert_idx >= self.num_routed_experts:
                current_hidden_states = current_state
            else:
                gate, up = F.linear(current_state, self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
                current_hidden_states = F.linear(F.silu(gate) * up, self.down_proj[expert_idx])
            current_hidden_states = current_hidden_states * token_weight[token_idx, None]
            routed_output = current_hidden_states.to(hidden_states.dtype)
            final_hidden_states.index_add_(
                0,
                token_idx,
                routed_output.masked_fill(~token_routed.view(-1, *[1] * (routed_output.dim() - 1)), 0),
            )
        return final_hidden_states.reshape(shape)


model = torch.compile(MoeBlock())
