# settings: unsafe_fixes=true site_lines=10,11
# A feature normaliser reads the batch's mean and standard deviation as numbers and subtracts and
# divides by them (an audio front end's per-utterance normalisation).
import torch
from torch import nn


class Norm(nn.Module):
    def forward(self, x):
        mean = x.mean().item()
        std = x.std().item()
        return (x - mean) / std


model = torch.compile(Norm())
