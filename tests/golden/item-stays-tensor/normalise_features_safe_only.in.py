# settings: unsafe_fixes=false site_lines=9,10
# Without --unsafe-fixes: the fix is unsafe (type promotion of a 0-dim tensor), so no change.
import torch
from torch import nn


class Norm(nn.Module):
    def forward(self, x):
        mean = x.mean().item()
        std = x.std().item()
        return (x - mean) / std


model = torch.compile(Norm())
