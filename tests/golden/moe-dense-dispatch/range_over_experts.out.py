# settings: unsafe_fixes=true
import torch
from torch import nn


class SparseMoeBlock(nn.Module):
    """The loop over every expert of Qwen2-MoE before the `expert_hit` form."""

    def __init__(self, hidden_dim=8, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.num_experts = num_experts
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = nn.ModuleList([nn.Linear(hidden_dim, hidden_dim) for _ in range(num_experts)])

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        routing_weights, selected_experts = torch.topk(torch.softmax(self.gate(hidden_states), 1), self.top_k, dim=-1)
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = torch.nn.functional.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            routed = expert_mask[expert_idx] != 0
            top_x = torch.arange(routed.shape[1], device=routed.device)
            token_routed = routed.any(0)
            token_weight = (routing_weights * routed.t()).sum(-1)
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * token_weight[top_x, None]
            final_hidden_states.index_add_(
                0,
                top_x,
                current_hidden_states.masked_fill(~token_routed.view(-1, *[1] * (current_hidden_states.dim() - 1)), 0),
            )
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)


model = torch.compile(SparseMoeBlock())
