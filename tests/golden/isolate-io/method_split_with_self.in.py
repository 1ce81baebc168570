# call: Scaler(2.0).forward(torch.arange(3.0), shift=1.0)
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    @torch.compile(dynamic=False)
    def forward(self, x, *, shift=0.0):
        scaled = x * self.factor
        print("scaled by", self.factor)
        return scaled + shift
