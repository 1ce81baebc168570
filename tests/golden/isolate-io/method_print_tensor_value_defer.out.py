# settings: unsafe_fixes=true
import torch
from torch import nn


class Probe(nn.Module):
    def forward(self, x):
        h = x.relu()
        if not torch.compiler.is_compiling():
            print("activation mean", h.mean())
        return h * 2


probe = torch.compile(Probe())
