import sys

import torch
from torch import nn


class Exp(nn.Module):
    def forward(self, x):
        y = x.exp()
        print("max", y.max(), sep=": ", file=sys.stderr)
        print("done", end="")
        return y


exp = torch.compile(Exp())
