# call: Scaler(2.0).forward(torch.arange(3.0), shift=1.0)
import torch
from torch import nn


class Scaler(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x, *, shift=0.0):
        scaled = self._forward_part1(x)
        print("scaled by", self.factor)
        return self._forward_part2(scaled, shift)

    @torch.compile(dynamic=False)
    def _forward_part1(self, x):
        scaled = x * self.factor
        return scaled

    @torch.compile(dynamic=False)
    def _forward_part2(self, scaled, shift):
        return scaled + shift
