# settings: select=isolate-io,unroll-loop
import torch


@torch.compiler.disable
def _deferred_print(*args):
    """Runs `print` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions; never traced itself.
    """
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compile
def scale_all(x):
    for scale in (0.5, 2.0):
        _deferred_print("scaled by", scale)
        x = x * scale
    return x
