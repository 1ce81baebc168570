# settings: unsafe_fixes=true site_lines=20,21 data_dependent_lines=20,21
# A parent decides with NumPy while it builds its blocks (`i >= np.log2(ratio)` is a
# `numpy.bool_`, HunyuanImage's refiner VAE in diffusers) and passes the flag as a `bool`
# argument; the block stores it as given, and Dynamo, which traces NumPy values as tensors,
# breaks where the block decides on it. Stored as `bool(...)`, it is a constant while tracing.
import numpy as np
import torch
from torch import nn


class Downsample(nn.Module):
    def __init__(self, channels: int, add_temporal_downsample: bool = True):
        super().__init__()
        factor = 8 if add_temporal_downsample else 4
        self.conv = nn.Conv3d(channels, channels, 3, padding=1)
        self.add_temporal_downsample = add_temporal_downsample

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv(x)
        r1 = 2 if self.add_temporal_downsample else 1
        if self.add_temporal_downsample:
            return h[:, :, ::r1]
        return h


class Encoder(nn.Module):
    def __init__(self, channels: int = 4, levels: int = 3, temporal_ratio: int = 2):
        super().__init__()
        self.blocks = nn.ModuleList(
            Downsample(channels, add_temporal_downsample=i >= np.log2(temporal_ratio)) for i in range(levels)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x
