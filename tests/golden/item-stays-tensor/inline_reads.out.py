# settings: unsafe_fixes=true
# Numbers read inline as operands of tensor arithmetic: a temperature dividing logits, a scale
# of an annotated tensor (no run needed: the code shows it is one), a ratio meeting a literal
# first; a read meeting only literals is left (`self.steps.item() + 1`, line 21).
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_temperature = nn.Parameter(torch.zeros(()))
        self.register_buffer("steps", torch.tensor(3))

    def forward(self, logits: torch.Tensor, mask: torch.Tensor):
        scaled = logits / self.log_temperature.exp().detach().reshape(())
        kept = mask * (1 - mask.float().mean().detach().reshape(()))
        return scaled, kept

    def next_step(self):
        return self.steps.item() + 1


head = torch.compile(Head())
