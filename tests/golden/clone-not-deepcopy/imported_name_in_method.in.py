# settings: unsafe_fixes=true
# `deepcopy` imported from `copy`, in a compiled module's forward: a snapshot of a state tensor
# the code shows (an arithmetic result) before it is updated in place; the sampler's form.
from copy import deepcopy

import torch
from torch import nn


class Sampler(nn.Module):
    def forward(self, x: torch.Tensor, steps: int):
        for _ in range(steps):
            previous = deepcopy(x * 1.0)
            x = x - 0.1 * torch.tanh(x)
            x.add_(previous, alpha=0.01)
        return x


model = torch.compile(Sampler())
