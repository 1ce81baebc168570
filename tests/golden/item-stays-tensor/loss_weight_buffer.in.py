# settings: unsafe_fixes=true site_lines=14
# A loss whose weight is a buffer updated by a schedule, read as a number before it weights the
# two terms (an auxiliary-loss warm-up's form); both uses meet tensors.
import torch
from torch import nn


class WeightedLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("aux_weight", torch.tensor(0.1))

    def forward(self, main, aux):
        weight = self.aux_weight.item()
        return main.mean() * (1 - weight) + weight * aux.mean()


loss_fn = torch.compile(WeightedLoss())
