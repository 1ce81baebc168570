# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn


class Conv(nn.Module):
    def __init__(self, stride: int):
        super().__init__()
        stride = torch.tensor(stride, dtype=torch.int64)
        self.stride = nn.Buffer(stride, persistent=False)

    def output_length(self, length):
        # Public: other code may expect the tensor it returns.
        return length // self.stride

    def forward(self, x):
        return x[..., : self.output_length(x.shape[-1])]
