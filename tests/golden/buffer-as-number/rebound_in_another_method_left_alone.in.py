# settings: unsafe_fixes=true assume_compiled=true
# A padding attribute that a method sets again: a number kept in __init__ would go stale.
import torch
from torch import nn


class Padded(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        kernel_size = torch.tensor(kernel_size, dtype=torch.int64)
        self.kernel_size = nn.Buffer(kernel_size, persistent=False)
        self.padding = self.kernel_size // 2

    def set_dilation(self, dilation: int):
        self.padding = (self.kernel_size // 2) * dilation

    def forward(self, x):
        return nn.functional.pad(x, (self.padding, self.padding))
