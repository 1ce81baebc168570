# settings: unsafe_fixes=true site_lines=16
# A module's buffer returned as a copy from its compiled forward; the run saw the break at the
# return (line 16), so the attribute is a tensor.
import copy

import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(4))

    def forward(self, x):
        return x + 1, copy.deepcopy(self.running)


model = torch.compile(Tracker())
