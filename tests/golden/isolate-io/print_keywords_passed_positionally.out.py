import sys

import torch
from torch import nn


@torch.compiler.disable
def _deferred_print_done():
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print("done", end="")


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_done)


@torch.compiler.disable
def _deferred_print_max(max_value):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print("max", max_value, sep=": ", file=sys.stderr)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_max)


class Exp(nn.Module):
    def forward(self, x):
        y = x.exp()
        _deferred_print_max(y.max())
        _deferred_print_done()
        return y


exp = torch.compile(Exp())
