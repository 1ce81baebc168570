# settings: unsafe_fixes=true
# A module's forward maps its per-head scales through a function and hands the iterator to the
# module's sizing helper (a module-level function) the line after.
import torch
from torch import nn


def count(values):
    return len(values) if hasattr(values, "__len__") else sum(1 for _ in values)


class Heads(nn.Module):
    def __init__(self, scales):
        super().__init__()
        self.scales = scales

    def forward(self, x):
        squared = map(lambda s: s * s, self.scales)
        n = count(list(squared))
        return x * n


model = torch.compile(Heads([1.0, 2.0, 3.0]))
