# settings: unsafe_fixes=true
# `__init__` keeps a NumPy number computed from Python numbers (Qwen3-Omni's code-to-wave
# decoder: `self.total_upsample = np.prod(config.upsample_rates + ...)`; normflows' base
# distributions: `self.d = np.prod(shape)`), and the compiled forward slices with it: Dynamo
# traces NumPy numbers as tensors, so the slice bound's value is unknown while it builds the
# graph. Python's own product is a number it folds.
import numpy as np
import math
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self, upsample_rates=(2, 2), upsampling_ratios=(2,)):
        super().__init__()
        self.total_upsample = math.prod(list(upsample_rates) + list(upsampling_ratios))
        self.proj = nn.Linear(4, 4)

    @torch.compile
    def forward(self, codes: torch.Tensor, context_size: int = 1) -> torch.Tensor:
        wav = self.proj(codes).repeat_interleave(8, dim=-1)
        return wav[..., context_size * self.total_upsample :]


class Unread(nn.Module):
    # Nothing compiled reads it: left alone.
    def __init__(self, shape=(2, 3)):
        super().__init__()
        self.d = np.prod(shape)
