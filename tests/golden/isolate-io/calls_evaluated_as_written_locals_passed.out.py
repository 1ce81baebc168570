import torch
from torch import nn


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compiler.disable
def _deferred_print_file(f, sum_value):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(f"file {f}", sum_value)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_file)

f = "module-level"


class Edge(nn.Module):
    def forward(self, x, it):
        _deferred_print(next(it), next(it))
        with open("/dev/null") as f:
            _deferred_print_file(f, x.sum())
        return x


edge = torch.compile(Edge())
