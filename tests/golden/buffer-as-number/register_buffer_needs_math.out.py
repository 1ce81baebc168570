# settings: unsafe_fixes=true assume_compiled=true
# call: run(10); run(11)
import torch
import torch.nn.functional as F
from torch import nn
import math


class StridedPad(nn.Module):
    def __init__(self, stride: int):
        super().__init__()
        self.register_buffer("stride", torch.tensor(stride, dtype=torch.long), persistent=False)
        self.stride_int = stride

    def forward(self, x):
        frames = math.ceil(x.shape[-1] / self.stride_int)
        extra = (frames * self.stride_int - x.shape[-1])
        return F.pad(x, (0, extra))


def run(length):
    return StridedPad(4)(torch.arange(float(length)).reshape(1, length))
