# settings: site_lines=14
# A body that logs as well as binds: something the library chose not to do while compiling.
import logging

import torch

logger = logging.getLogger(__name__)


def weighted_sum(values, weights=None):
    if weights is None and not torch.compiler.is_compiling():
        logger.info("no weights given: using ones")
        weights = torch.ones_like(values)
    return (values * weights).sum(dim=-1)
