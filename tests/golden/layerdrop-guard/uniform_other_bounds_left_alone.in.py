# settings: assume_compiled=true unsafe_fixes=true
# random.uniform(-1, 1) can be below 0: `draw < p` may hold with p == 0, so nothing is guarded.
import random

import torch
from torch import nn


class Blocks(nn.Module):
    def forward(self, x):
        for block in self.blocks:
            if self.training and random.uniform(-1, 1) < self.rate:
                continue
            x = block(x)
        return x
