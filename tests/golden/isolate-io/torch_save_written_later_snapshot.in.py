import torch
from torch import nn


class Recorder(nn.Module):
    def forward(self, x, path):
        h = x * 2
        torch.save(h, path)
        h.mul_(2)
        return h + 1


recorder = torch.compile(Recorder())
