# settings: unsafe_fixes=true assume_compiled=true
# A module written for several backends imports torch only inside the function that needs it
# (torchquad's integration helpers): the guard's `torch.compiler.is_compiling()` would raise
# NameError in the other functions, so the module imports torch first.
import logging
import torch

logger = logging.getLogger(__name__)


def setup_domain(domain, dtype):
    if not torch.compiler.is_compiling():
        logger.debug("Setting up integration domain.")
    return [[float(a), float(b)] for a, b in domain]


def sobol_points(count):
    import torch

    return torch.quasirandom.SobolEngine(2).draw(count)
