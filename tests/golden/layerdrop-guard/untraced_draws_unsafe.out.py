# settings: assume_compiled=true unsafe_fixes=true
# Draws Dynamo skips (random.random(), NumPy's): the probability is tested before drawing (unsafe).
import random

import numpy as np
import torch
from torch import nn


class Blocks(nn.Module):
    def forward(self, x):
        for block in self.blocks:
            if self.training and self.drop_path_rate > 0 and random.random() < self.drop_path_rate:
                continue
            x = block(x)
        for block in self.extra:
            if self.layer_dropout > 0 and np.random.uniform(0, 1) < self.layer_dropout:
                continue
            x = block(x)
        return x
