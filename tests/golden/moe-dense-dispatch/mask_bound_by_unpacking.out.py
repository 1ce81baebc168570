# settings: unsafe_fixes=true
# The mask is also bound by unpacking (a binding whose value the analysis does not keep): the
# rule looks past it for a class past the experts and still rewrites the loop.
import torch
from torch import nn


class Experts(nn.Module):
    def forward(self, hidden_states, top_k_index, top_k_weights):
        final = torch.zeros_like(hidden_states)
        expert_mask, other = torch.nn.functional.one_hot(top_k_index, num_classes=5), None
        expert_mask = expert_mask.permute(2, 1, 0)
        for expert_idx in range(expert_mask.sum(dim=(-1, -2)).shape[0]):
            routed = expert_mask[expert_idx] != 0
            token_idx = torch.arange(routed.shape[1], device=routed.device)
            token_routed = routed.any(0)
            token_weight = (top_k_weights * routed.t()).sum(-1)
            routed_output = hidden_states[token_idx] * token_weight[token_idx, None]
            final.index_add_(
                0,
                token_idx,
                routed_output.masked_fill(~token_routed.view(-1, *[1] * (routed_output.dim() - 1)), 0),
            )
        return final


model = torch.compile(Experts())
