# settings: unsafe_fixes=true site_lines=14
# A language model's per-token loss averaged over the tokens whose label is not the ignore index
# (the shifted-label loss written by hand), in a compiled module's forward.
import torch
import torch.nn.functional as F
from torch import nn


class TokenLoss(nn.Module):
    def forward(self, logits, labels):
        flat_labels = labels.reshape(-1)
        losses = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), flat_labels.clamp(min=0), reduction="none")
        counted = flat_labels != -100
        return (torch.where(counted, losses, 0).sum() / counted.sum())


loss_fn = torch.compile(TokenLoss())
