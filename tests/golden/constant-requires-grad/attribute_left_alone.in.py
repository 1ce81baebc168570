# settings: unsafe_fixes=true
import torch
from torch import nn


class Scaled(nn.Module):
    def forward(self, x):
        # Kept on the module after the call: its gradient can be read later.
        self.scale = torch.ones(1, requires_grad=True)
        return x * self.scale


model = torch.compile(Scaled())
