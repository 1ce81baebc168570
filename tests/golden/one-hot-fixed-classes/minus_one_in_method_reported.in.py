# `num_classes=-1` (the default, written out), through `torch.nn.functional` itself, in a compiled
# module's forward: reported, not rewritten.
import torch
from torch import nn


class Targets(nn.Module):
    def forward(self, labels):
        dense = torch.nn.functional.one_hot(labels, num_classes=-1)
        return dense.float()


model = torch.compile(Targets())
