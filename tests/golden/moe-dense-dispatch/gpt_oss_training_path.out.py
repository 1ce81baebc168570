# settings: unsafe_fixes=true
# GPT-OSS's loop as transformers 4.55 wrote it for training and CPU: the rows as `expert_hit[:]`,
# the tokens found under `no_grad` with the slot unused, each token's weight read per expert from
# a dense (tokens x experts) routing matrix.
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, num_experts=4, hidden_size=8):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up_proj = nn.Parameter(torch.randn(num_experts, hidden_size, 2 * hidden_size) / 4)
        self.gate_up_proj_bias = nn.Parameter(torch.randn(num_experts, 2 * hidden_size) / 4)
        self.down_proj = nn.Parameter(torch.randn(num_experts, hidden_size, hidden_size) / 4)
        self.limit = 7.0

    def forward(self, hidden_states, router_indices, routing_weights):
        next_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = torch.nn.functional.one_hot(router_indices, num_classes=self.num_experts)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0)
        for expert_idx in range(expert_hit.shape[0]):
            with torch.no_grad():
                routed = expert_mask[expert_idx] != 0
                token_idx = torch.arange(routed.shape[1], device=routed.device)
                token_routed = routed.any(0)
            current_state = hidden_states[token_idx]
            gate_up = current_state @ self.gate_up_proj[expert_idx] + self.gate_up_proj_bias[expert_idx]
            gate, up = gate_up[..., ::2], gate_up[..., 1::2]
            gate = gate.clamp(max=self.limit)
            gated_output = (up.clamp(-self.limit, self.limit) + 1) * (gate * torch.sigmoid(gate * 1.702))
            out = gated_output @ self.down_proj[expert_idx]
            weighted_output = out * routing_weights[token_idx, expert_idx, None]
            next_states.index_add_(
                0,
                token_idx,
                weighted_output.masked_fill(~token_routed.view(-1, *[1] * (weighted_output.dim() - 1)), 0),
            )
        return next_states


class MoeBlock(nn.Module):
    def __init__(self, hidden_size=8, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.num_experts = num_experts
        self.router = nn.Linear(hidden_size, num_experts)
        self.experts = Experts(num_experts, hidden_size)

    def forward(self, hidden_states):
        shape = hidden_states.shape
        hidden_states = hidden_states.reshape(-1, shape[-1])
        logits = self.router(hidden_states)
        top_values, top_indices = torch.topk(logits, self.top_k, dim=-1)
        scores = torch.zeros_like(logits).scatter_(1, top_indices, torch.softmax(top_values, dim=-1))
        return self.experts(hidden_states, top_indices, scores).reshape(shape)


model = torch.compile(MoeBlock())
