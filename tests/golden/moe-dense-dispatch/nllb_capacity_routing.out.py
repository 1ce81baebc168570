# settings: unsafe_fixes=true
import torch
from torch import nn


class CapacityMoeBlock(nn.Module):
    """NLLB-MoE's experts: the routing is a 0/1 mask per (token, expert) after a top-2 router
    drops the tokens over an expert's capacity, and the loop's "slots" are the mask's columns, so
    one token reaches an expert from several of them."""

    def __init__(self, hidden_dim=8, num_experts=4, capacity=3):
        super().__init__()
        self.num_experts = num_experts
        self.capacity = capacity
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = nn.ModuleDict({f"expert_{i}": nn.Linear(hidden_dim, hidden_dim) for i in range(num_experts)})

    def route(self, hidden_states):
        probs = torch.softmax(self.gate(hidden_states), dim=-1)
        top_2 = torch.topk(probs, 2, dim=-1).indices
        mask = torch.nn.functional.one_hot(top_2, self.num_experts).sum(1)
        # Tokens past an expert's capacity are dropped: their mask entry is cleared.
        mask = mask * torch.lt(torch.cumsum(mask, dim=0) - 1, self.capacity)
        return mask, probs * mask

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_mask, router_probs = self.route(hidden_states)
        final_hidden_states = torch.zeros_like(hidden_states)
        expert_mask = torch.nn.functional.one_hot(router_mask, num_classes=self.num_experts).permute(2, 1, 0)
        expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0)
        for expert_idx in range(expert_hit.shape[0]):
            routed = expert_mask[[expert_idx]].squeeze(0) != 0
            top_x = torch.arange(routed.shape[1], device=routed.device)
            token_routed = routed.any(0)
            token_weight = (router_probs * routed.t()).sum(-1)
            current_state = hidden_states[None, top_x].reshape(-1, hidden_states.shape[-1])
            current_hidden_states = self.experts[f"expert_{expert_idx}"](current_state) * token_weight[top_x, None]
            routed_output = current_hidden_states.to(hidden_states.dtype)
            final_hidden_states.index_add_(
                0,
                top_x,
                routed_output.masked_fill(~token_routed.view(-1, *[1] * (routed_output.dim() - 1)), 0),
            )
        return final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)


model = torch.compile(CapacityMoeBlock())
