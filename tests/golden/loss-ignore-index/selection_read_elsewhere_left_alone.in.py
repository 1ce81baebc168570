# settings: unsafe_fixes=true
# The selected labels are also counted for an accuracy: they must stay the selected tokens.
import torch
from torch import nn


@torch.compile
def loss_and_accuracy(logits, labels, mask):
    picked_logits = logits[mask != 0].contiguous()
    picked_labels = labels[mask != 0].contiguous()
    loss_fct = nn.CrossEntropyLoss()
    loss = loss_fct(picked_logits.view(-1, picked_logits.size(-1)), picked_labels.view(-1))
    accuracy = (picked_logits.argmax(-1) == picked_labels).float().mean()
    return loss, accuracy
