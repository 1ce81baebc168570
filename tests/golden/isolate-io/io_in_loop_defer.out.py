# call: fn(torch.ones(2))
import torch


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compile
def fn(x):
    for step in range(3):
        x = x * 2
        _deferred_print("doubled")
    return x
