# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        scale = torch.tensor(scale)
        self.scale = nn.Buffer(scale, persistent=False)

    def forward(self, x):
        if self.scale > 1:
            return x * 2
        return x
