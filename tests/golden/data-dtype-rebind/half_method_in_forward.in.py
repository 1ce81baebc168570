# settings: unsafe_fixes=true
# A mixed-precision forward casts its input in place of itself with `.half()` (no `.data` on the
# right), then computes in half precision.
import torch
from torch import nn


class HalfHead(nn.Module):
    def forward(self, features):
        features.data = features.half()
        return features * 2


model = torch.compile(HalfHead())
