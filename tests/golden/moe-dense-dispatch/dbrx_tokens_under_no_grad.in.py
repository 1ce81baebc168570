# settings: unsafe_fixes=true
# DBRX's form: the experts' weights are one parameter viewed per expert, the tokens are found
# under `no_grad`, and the one-hot has a class past the experts that the loop never skips.
import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, num_experts=4, hidden_size=8, ffn_size=6):
        super().__init__()
        self.num_experts = num_experts
        self.hidden_size = hidden_size
        self.ffn_size = ffn_size
        self.w1 = nn.Parameter(torch.randn(num_experts * ffn_size, hidden_size) / 4)
        self.v1 = nn.Parameter(torch.randn(num_experts * ffn_size, hidden_size) / 4)
        self.w2 = nn.Parameter(torch.randn(num_experts * ffn_size, hidden_size) / 4)

    def forward(self, hidden_states, top_k_index, top_k_weights):
        next_states = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = torch.nn.functional.one_hot(top_k_index, num_classes=self.num_experts + 1)
            expert_mask = expert_mask.permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

        per_expert = (-1, self.ffn_size, self.hidden_size)
        for expert_idx in expert_hit:
            expert_idx = expert_idx[0]
            with torch.no_grad():
                idx, token_idx = torch.where(expert_mask[expert_idx])
            w1 = self.w1.view(per_expert)[expert_idx]
            v1 = self.v1.view(per_expert)[expert_idx]
            w2 = self.w2.view(per_expert)[expert_idx]
            x = hidden_states[token_idx]
            states = (torch.nn.functional.silu(x @ w1.T) * (x @ v1.T)) @ w2
            states = states * top_k_weights[token_idx, idx, None]
            next_states.index_add_(0, token_idx, states)
        return next_states


class MoeBlock(nn.Module):
    def __init__(self, hidden_size=8, num_experts=4, top_k=2):
        super().__init__()
        self.top_k = top_k
        self.router = nn.Linear(hidden_size, num_experts, bias=False)
        self.experts = Experts(num_experts, hidden_size)

    def forward(self, hidden_states):
        shape = hidden_states.shape
        hidden_states = hidden_states.reshape(-1, shape[-1])
        weights, indices = torch.topk(torch.softmax(self.router(hidden_states), dim=-1), self.top_k, dim=-1)
        return self.experts(hidden_states, indices, weights).reshape(shape)


model = torch.compile(MoeBlock())
