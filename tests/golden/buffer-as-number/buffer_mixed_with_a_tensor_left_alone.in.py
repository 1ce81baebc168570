# settings: unsafe_fixes=true assume_compiled=true
import torch
from torch import nn


class Offsets(nn.Module):
    def __init__(self, offset: int):
        super().__init__()
        offset = torch.tensor(offset, dtype=torch.int64)
        self.offset = nn.Buffer(offset, persistent=False)

    def forward(self, positions):
        # Tensor arithmetic: the buffer meets a tensor of the input.
        return positions + self.offset
