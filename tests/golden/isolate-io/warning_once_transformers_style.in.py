# settings: assume_compiled=true unsafe_fixes=true
import torch
from torch import nn

from transformers.utils import logging

logger = logging.get_logger(__name__)


class Attention(nn.Module):
    def forward(self, hidden, past=None):
        if past is None:
            logger.warning_once(
                "Passing a tuple of `past_key_values` is deprecated and will be removed in v4.47. "
                "Use a Cache instance instead."
            )
        return hidden
