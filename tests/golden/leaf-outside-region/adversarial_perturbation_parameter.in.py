# An adversarial perturbation to optimise (a robustness attack's step), built as a parameter from
# `nn` at the top of a compiled method, then added to the input and scored.
import torch
from torch import nn


class Attack(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    @torch.compile
    def perturbed_loss(self, x, target):
        delta = nn.Parameter(torch.zeros_like(x))
        logits = self.model(x + delta)
        return nn.functional.cross_entropy(logits, target), delta
