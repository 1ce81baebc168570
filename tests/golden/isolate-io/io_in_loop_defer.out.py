# call: fn(torch.ones(2))
import torch


@torch.compiler.disable
def _deferred_print(*args):
    """Runs `print` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions; never traced itself.
    """
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compile
def fn(x):
    for step in range(3):
        x = x * 2
        _deferred_print("doubled")
    return x
