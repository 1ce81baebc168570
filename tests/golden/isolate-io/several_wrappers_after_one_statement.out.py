# call: fn(torch.ones(2), True)
import logging

import torch


@torch.compiler.disable
def _deferred_print(*args):
    """Runs `print` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions; never traced itself.
    """
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)

logger = logging.getLogger(__name__)


@torch.compiler.disable
def _deferred_logger_info(*args):
    """Runs `logger.info` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions; never traced itself.
    """
    logger.info(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_info)


@torch.compiler.disable
def _deferred_logger_warning(*args):
    """Runs `logger.warning` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions; never traced itself.
    """
    logger.warning(*args, stacklevel=3)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_warning)


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
