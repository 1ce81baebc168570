# settings: assume_compiled=true
# A helper of the user's decides the drop, and its only callers test it in an `if`.
import torch
from torch import nn


class Encoder(nn.Module):
    def _drop_layer(self):
        """Whether to skip this layer (LayerDrop)."""
        return self.training and torch.rand([]) < self.layerdrop

    def forward(self, hidden_states):
        for layer in self.layers:
            if self._drop_layer():
                continue
            hidden_states = layer(hidden_states)
        return hidden_states
