# call: fn(torch.ones(2), True)
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def fn(x, verbose):
    if verbose:
        logger.info("starting")
    x = x * 2
    if verbose:
        logger.warning("doubled")
        print("halfway")
    x = x + 1
    if verbose:
        logger.info("done")
        print("bye")
    return x
