# settings: select=isolate-io,unroll-loop
import torch


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compile
def scale_all(x):
    for scale in (0.5, 2.0):
        _deferred_print("scaled by", scale)
        x = x * scale
    return x
