# settings: unsafe_fixes=true
# An index that is not a boolean mask (positions) selects rows of a known count: left alone.
import torch
import torch.nn.functional as F


@torch.compile
def loss_at(logits, labels, positions):
    return F.cross_entropy(logits[positions], labels[positions])
