# call: fn(torch.ones(2), True)
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compiler.disable
def _deferred_logger_info(*args):
    """graphweld isolate-io: `logger.info`, run after the compiled graph."""
    logger.info(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_info)


@torch.compiler.disable
def _deferred_logger_warning(*args):
    """graphweld isolate-io: `logger.warning`, run after the compiled graph."""
    logger.warning(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_warning)


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compile
def fn(x, verbose):
    if verbose:
        _deferred_logger_info("starting")
    x = x * 2
    if verbose:
        _deferred_logger_warning("doubled")
        _deferred_print("halfway")
    x = x + 1
    if verbose:
        _deferred_logger_info("done")
        _deferred_print("bye")
    return x
