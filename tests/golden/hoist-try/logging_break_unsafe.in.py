# settings: unsafe_fixes=true
import logging

import torch

logger = logging.getLogger(__name__)


class Block(torch.nn.Module):
    def forward(self, x):
        try:
            h = x.tanh()
            logger.warning("activation computed")
            return h * 2
        except RuntimeError:
            raise


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x)


compiled = torch.compile(Model())
