# settings: assume_compiled=true
# The draw read into Python with .item(), inline: drawn as the tensor instead (the same numbers).
import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            if self.training and torch.rand(1).item() < self.layerdrop:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states
