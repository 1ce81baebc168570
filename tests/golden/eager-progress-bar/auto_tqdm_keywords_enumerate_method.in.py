# settings: unsafe_fixes=true
# An evaluation loop in a compiled module's forward: `tqdm.auto` through its module, keywords
# kept, the bar inside `enumerate`; a comment above the loop stays above what replaces it.
import torch
import tqdm.auto
from torch import nn


class Refiner(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.steps = steps
        self.layer = nn.Linear(4, 4)

    def forward(self, x):
        # refine the estimate
        for index, scale in enumerate(tqdm.auto.tqdm(self.steps, desc="refine", leave=False)):
            x = x + scale * self.layer(x) / (index + 1)
        return x


model = torch.compile(Refiner([0.5, 0.25]))
