# settings: unsafe_fixes=true
import torch
from torch import nn


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


class Probe(nn.Module):
    def forward(self, x):
        h = x.relu()
        _deferred_print("activation mean", h.mean())
        return h * 2


probe = torch.compile(Probe())
