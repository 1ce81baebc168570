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
        for expert_idx in expert_mask.sum(dim=(-1, -2)).nonzero():
            top_k_pos, token_idx = torch.where(expert_mask[expert_idx[0]])
            final.index_add_(0, token_idx, hidden_states[token_idx] * top_k_weights[token_idx, top_k_pos, None])
        return final


model = torch.compile(Experts())
