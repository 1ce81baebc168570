# settings: assume_compiled=true
import torch
from torch import nn

from transformers.utils import logging

logger = logging.get_logger(__name__)


def _deferred_logger_warning_once(*args, **kwargs):
    """Runs `logger.warning_once` after the compiled graph instead of breaking it (graphweld isolate-io)."""
    logger.warning_once(*args, **kwargs)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_warning_once)


class Attention(nn.Module):
    def forward(self, hidden, past=None):
        if past is None:
            _deferred_logger_warning_once(
                "Passing a tuple of `past_key_values` is deprecated and will be removed in v4.47. "
                "Use a Cache instance instead."
            )
        return hidden
