# settings: assume_compiled=true
# A helper of the user's decides the drop, and its only callers test it in an `if`.
import torch
from torch import nn


class Encoder(nn.Module):
    def _drop_layer(self):
        """Whether to skip this layer (LayerDrop)."""
        if self.training:
            dropout_probability = torch.rand([])
            return self.layerdrop > 0 and dropout_probability < self.layerdrop
        return self.training

    def forward(self, hidden_states):
        for layer in self.layers:
            if self._drop_layer():
                continue
            hidden_states = layer(hidden_states)
        return hidden_states
