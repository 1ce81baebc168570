# call: Model()(torch.ones(2), use_cache=True)
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


@torch.compiler.disable
def _deferred_logger_warning(*args):
    """graphweld isolate-io: `logger.warning`, run after the compiled graph."""
    logger.warning(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_warning)


class Model(nn.Module):
    def forward(self, x, use_cache=False):
        if use_cache and self.training:
            _deferred_logger_warning("`use_cache=True` is incompatible with training. Setting `use_cache=False`.")
            use_cache = False
        return x * 2, use_cache


compiled = torch.compile(Model())
