# settings: unsafe_fixes=true
# A module's own buffer drawn in place (`self.noise.random_`): not a name, left alone.
import torch
from torch import nn


class Dropper(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("noise", torch.zeros(4))

    def forward(self, x):
        self.noise.random_(0, 2)
        return x * self.noise


model = torch.compile(Dropper())
