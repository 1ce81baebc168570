# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn


class Frames(nn.Module):
    def __init__(self, stride: int):
        super().__init__()
        stride = torch.tensor(stride, dtype=torch.int64)
        self.stride = nn.Buffer(stride, persistent=False)

    def forward(self, lengths):
        lengths = torch.as_tensor(lengths, device=self.stride.device)
        return (lengths + self.stride - 1) // self.stride
