import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            dropout_probability = torch.rand([])
            if dropout_probability < self.layerdrop:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states
