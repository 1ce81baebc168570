import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


@torch.compiler.disable
def _deferred_logger_info(*args):
    """graphweld isolate-io: `logger.info`, run after the compiled graph."""
    logger.info(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_info)


class Head(nn.Module):
    def __init__(self, temperature=0.7):
        super().__init__()
        self.temperature = temperature

    def forward(self, logits):
        logits = logits / self.temperature
        _deferred_logger_info("temperature %s, logit norm %.3f", self.temperature, logits.norm())
        return logits.softmax(-1)


head = torch.compile(Head())
