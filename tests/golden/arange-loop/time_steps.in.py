# settings: assume_compiled=true
# A recurrent cell stepped through time: the step indexes the input, picks a branch and goes
# through int(); arange's device and dtype say nothing of the numbers.
import torch
from torch import nn


class Recurrent(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.cell = nn.Linear(2 * features, features)

    def forward(self, x):
        h = x.new_zeros(x.shape[0], x.shape[2])
        for t in torch.arange(x.size(1), device=x.device, dtype=torch.long):
            if t > 0 and not t == x.shape[1]:
                h = torch.tanh(self.cell(torch.cat([h, x[:, t]], dim=-1)))
            else:
                h = x[:, int(t)]
        return h
