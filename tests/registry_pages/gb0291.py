import logging

import torch

logging.basicConfig(level=logging.INFO, format="%(message)s")
logger = logging.getLogger(__name__)


@torch.compile(fullgraph=True)
def fn(x):
    logger.info("processing tensor of shape %s", x.shape)
    return x + 1


print(fn(torch.arange(3.0)))
