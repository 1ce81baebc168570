import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Head(nn.Module):
    def __init__(self, temperature=0.7):
        super().__init__()
        self.temperature = temperature

    def forward(self, logits):
        logits = logits / self.temperature
        logger.info("temperature %s, logit norm %.3f", self.temperature, logits.norm())
        return logits.softmax(-1)


head = torch.compile(Head())
