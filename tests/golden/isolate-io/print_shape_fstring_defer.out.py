import torch


@torch.compiler.disable
def _deferred_print_shape(shape):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(f"shape {shape}")


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_shape)


@torch.compile
def fn(x):
    if x.dim() > 1:
        # the shape is formatted in the graph; the wrapper prints the text
        _deferred_print_shape(f"{x.shape}")
    return x + 1
