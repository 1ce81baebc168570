import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states):
        draw = torch.rand([])
        if hidden_states.shape[0] > 2:
            draw = hidden_states.mean()
        if draw < self.layerdrop:
            return hidden_states
        return hidden_states + 1


encoder = torch.compile(Encoder())
