# settings: assume_compiled=true
# The helper's value is used as a tensor (a mask), not only tested: its type must not change.
import torch
from torch import nn


class Encoder(nn.Module):
    def _drop_layer(self):
        return self.training and torch.rand([]) < self.layerdrop

    def forward(self, hidden_states):
        for layer in self.layers:
            keep = ~self._drop_layer()
            hidden_states = torch.where(keep, layer(hidden_states), hidden_states)
        return hidden_states
