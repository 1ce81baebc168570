import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            # Guarding before the draw would skip it: the random stream would change.
            if self.training and torch.rand([]) < self.layerdrop:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states


encoder = torch.compile(Encoder())
