import torch
from torch import nn


class Writer(nn.Module):
    def forward(self, x, buffer):
        print("buffer", buffer)
        buffer[0] = x.sum()
        return x + 1


writer = torch.compile(Writer())
