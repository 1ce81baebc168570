# settings: unsafe_fixes=true
# `reduction="none"` returns one loss per selected token: as many as the mask selects, which
# the ignore index would not give. Left alone.
import torch
from torch import nn


@torch.compile
def token_losses(logits, labels, mask):
    loss_fct = nn.CrossEntropyLoss(reduction="none")
    return loss_fct(logits[mask.bool()], labels[mask.bool()])
