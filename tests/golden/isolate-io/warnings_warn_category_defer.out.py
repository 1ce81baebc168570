import warnings

import torch


@torch.compiler.disable
def _deferred_warnings_warn_float64_input_is():
    """graphweld isolate-io: `warnings.warn`, run after the compiled graph."""
    warnings.warn("float64 input is slow", UserWarning, 4)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_warnings_warn_float64_input_is)


@torch.compiler.disable
def _deferred_warnings_warn_the_device_argument():
    """graphweld isolate-io: `warnings.warn`, run after the compiled graph."""
    warnings.warn(
        "The `device` argument is deprecated and will be removed in v5 of Transformers.",
        FutureWarning,
        stacklevel=3,
    )


torch._dynamo.config.reorderable_logging_functions.add(_deferred_warnings_warn_the_device_argument)


@torch.compile
def embed(x, device=None):
    if device is not None:
        _deferred_warnings_warn_the_device_argument()
    if x.dtype == torch.float64:
        _deferred_warnings_warn_float64_input_is()
    return x * 2
