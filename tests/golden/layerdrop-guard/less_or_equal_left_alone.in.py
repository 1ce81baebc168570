import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        for layer in self.layers:
            draw = torch.rand([])
            # A draw can be exactly 0: `draw <= 0` can hold, so no guard is exact.
            if draw <= self.layerdrop:
                continue
            hidden_states = layer(hidden_states)
        return hidden_states


encoder = torch.compile(Encoder())
