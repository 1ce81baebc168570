import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        logger.info("after linear: %d bytes", torch.cuda.memory_allocated())
        peak = torch.cuda.max_memory_allocated()
        print(f"peak {peak / 2**20:.1f} MiB on {torch.cuda.get_device_name(0)}")
        return h.relu()


model = torch.compile(Model())
