"""Loops over `torch.arange(...)` whose variable indexes: a text CNN's n-gram shifts (a slice
bound) and a recurrent cell stepped through time (an index, a branch's test). Each step is a
0-dim tensor read as a number (GB0033/GB0170) inside a loop: Dynamo skips the whole frame."""

import torch
from torch import nn


class ShiftedRecurrent(nn.Module):
    def __init__(self, features=4, ngram=3):
        super().__init__()
        self.ngram = ngram
        self.mix = nn.Linear(ngram * features, features)
        self.cell = nn.Linear(2 * features, features)

    def forward(self, x):
        shifted = []
        size = x.size()
        for i in torch.arange(self.ngram):
            shifted_x = torch.zeros((size[0], size[1] + self.ngram, size[2]), device=x.device)
            shifted_x[:, i:i - self.ngram, :] = x
            shifted.append(shifted_x[:, : size[1]])
        features = self.mix(torch.cat(shifted, dim=-1))
        h = features.new_zeros(size[0], size[2])
        for t in torch.arange(features.size(1), device=x.device):
            if t > 0:
                h = torch.tanh(self.cell(torch.cat([h, features[:, t]], dim=-1)))
            else:
                h = features[:, t]
        return h


def my_model_function():
    torch.manual_seed(0)
    return ShiftedRecurrent()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(2, 5, 4)
