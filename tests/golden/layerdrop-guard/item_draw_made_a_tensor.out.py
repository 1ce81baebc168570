# settings: assume_compiled=true
# The draw read into Python with .item(), inline: drawn as the tensor instead (the same numbers).
import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            if self.training:
                dropout_probability = torch.rand(1)
                if self.layerdrop > 0 and dropout_probability < self.layerdrop:
                    continue
            hidden_states = layer(hidden_states)
        return hidden_states
