# call: fn(torch.ones(2), True)
import logging

import torch


def _deferred_print(*args):
    """Runs `print` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions.
    """
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)

logger = logging.getLogger(__name__)


def _deferred_logger_info(*args):
    """Runs `logger.info` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions.
    """
    logger.info(*args, stacklevel=2)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_logger_info)


def _deferred_logger_warning(*args):
    """Runs `logger.warning` after the compiled graph instead of breaking it (graphweld isolate-io).

    Registered in torch._dynamo.config.reorderable_logging_functions.
    """
    logger.warning(*args, stacklevel=2)


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
