# settings: unsafe_fixes=true
import numpy as np
import math
import torch
from torch import nn


def least_common_chunk_length(lsh_chunk_length, local_chunk_length):
    return math.lcm(lsh_chunk_length, local_chunk_length)


class ChunkPadder(nn.Module):
    """Pads a sequence to a multiple of two attention chunk lengths (Reformer's form)."""

    def __init__(self, lsh_chunk_length=4, local_chunk_length=6):
        super().__init__()
        self.lsh_chunk_length = lsh_chunk_length
        self.local_chunk_length = local_chunk_length

    def forward(self, hidden_states):
        multiple = least_common_chunk_length(self.lsh_chunk_length, self.local_chunk_length)
        if hidden_states.shape[1] % multiple != 0:
            padding = multiple - hidden_states.shape[1] % multiple
            hidden_states = nn.functional.pad(hidden_states, (0, 0, 0, padding))
        return hidden_states


model = torch.compile(ChunkPadder())
