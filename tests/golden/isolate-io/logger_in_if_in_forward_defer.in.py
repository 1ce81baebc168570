# call: Model()(torch.ones(2), use_cache=True)
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def forward(self, x, use_cache=False):
        if use_cache and self.training:
            logger.warning("`use_cache=True` is incompatible with training. Setting `use_cache=False`.")
            use_cache = False
        return x * 2, use_cache


compiled = torch.compile(Model())
