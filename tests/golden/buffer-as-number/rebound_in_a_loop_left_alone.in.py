# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn


class Frames(nn.Module):
    def __init__(self, stride: int):
        super().__init__()
        stride = torch.tensor(stride, dtype=torch.int64)
        self.stride = nn.Buffer(stride, persistent=False)

    def forward(self, x):
        length = x.shape[-1]
        for row in x:
            # `length` is a tensor from here on: the buffer meets a tensor below.
            length = row.sum()
        frames = torch.ceil(length / self.stride).to(torch.int64)
        return x[..., :frames]
