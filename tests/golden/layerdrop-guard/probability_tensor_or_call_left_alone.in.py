import torch
from torch import nn


class Encoder(nn.Module):
    def forward(self, hidden_states, rate: torch.Tensor):
        draw = torch.rand([])
        if draw < rate:
            return hidden_states
        if draw < self.schedule():
            return hidden_states * 2
        return hidden_states + 1


encoder = torch.compile(Encoder())
