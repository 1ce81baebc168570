# settings: unsafe_fixes=true
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, num_experts=4, hidden_size=8):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, hidden_size, 2 * hidden_size) / 4)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden_size, hidden_size) / 4)

    def forward(self, hidden_states, router_indices, routing_weights):
        next_states = torch.zeros_like(hidden_states, dtype=torch.float32)
        with torch.no_grad():
            expert_mask = torch.nn.functional.one_hot(router_indices, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0)

        for expert_idx in range(expert_hit.shape[0]):
            # skip the masking index
            if expert_idx == self.num_experts:
                continue
            routed = expert_mask[expert_idx] != 0
            token_idx = torch.arange(routed.shape[1], device=routed.device)
            token_routed = routed.any(0)
            token_weight = (routing_weights * routed.t()).sum(-1)
            current_state = hidden_states[token_idx]
            gate, up = (current_state @ self.gate_up_proj[expert_idx]).chunk(2, dim=-1)
            out = (torch.nn.functional.silu(gate) * up) @ self.down_proj[expert_idx]
            weighted_output = out * token_weight[token_idx, None]
            next_states.index_add_(
                0,
                token_idx,
                weighted_output.masked_fill(~token_routed.view(-1, *[1] * (weighted_output.dim() - 1)), 0),
            )
        return next_states.to(hidden_states.dtype)


class MoeBlock(nn.Module):
    def __init__(self, hidden_size=8, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(hidden_size, num_experts)
        self.experts = Experts(num_experts, hidden_size)

    def forward(self, hidden_states):
        shape = hidden_states.shape
        hidden_states = hidden_states.reshape(-1, shape[-1])
        scores, indices = torch.topk(self.router(hidden_states), self.top_k, dim=-1)
        return self.experts(hidden_states, indices, torch.softmax(scores, dim=-1)).reshape(shape)


model = torch.compile(MoeBlock())
