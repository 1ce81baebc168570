import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


@torch.compiler.disable
def _deferred_logger_info_after_linear_bytes():
    """graphweld isolate-io: `logger.info`, run after the compiled graph."""
    logger.info("after linear: %d bytes", torch.cuda.memory_allocated(), stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_info_after_linear_bytes)


@torch.compiler.disable
def _deferred_print_peak():
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(
        f"peak {torch.cuda.max_memory_allocated() / 2**20:.1f} MiB on {torch.cuda.get_device_name(0)}",
    )


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_peak)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        _deferred_logger_info_after_linear_bytes()
        _deferred_print_peak()
        return h.relu()


model = torch.compile(Model())
