# settings: site_lines=31 called_lines=31 disabled_call_lines=31
import numpy as np
import torch
from torch import nn


@torch.compiler.disable
def compute_mask_indices(shape, mask_prob, mask_length):
    """Spans of time steps to mask, drawn with NumPy (transformers' `_compute_mask_indices`)."""
    batch, length = shape
    mask = np.zeros(shape, dtype=bool)
    spans = max(1, int(mask_prob * length / mask_length))
    for row in range(batch):
        starts = np.random.choice(length - mask_length, spans, replace=False)
        for start in starts:
            mask[row, start : start + mask_length] = True
    return mask


class SpeechEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.masked_spec_embed = nn.Parameter(torch.rand(dim))
        self.proj = nn.Linear(dim, dim)

    def _mask_hidden_states(self, hidden_states):
        """SpecAugment in training (the speech encoders' `_mask_hidden_states`)."""
        if not self.training:
            return hidden_states
        batch, length, _ = hidden_states.size()
        mask = compute_mask_indices((batch, length), mask_prob=0.2, mask_length=2)
        mask = torch.tensor(mask, device=hidden_states.device, dtype=torch.bool)
        hidden_states = hidden_states.clone()
        hidden_states[mask] = self.masked_spec_embed.to(hidden_states.dtype)
        return hidden_states

    def forward(self, features):
        hidden_states = self.proj(features)
        hidden_states = self._mask_hidden_states(hidden_states)
        return hidden_states.relu()


encoder = torch.compile(SpeechEncoder(4))
