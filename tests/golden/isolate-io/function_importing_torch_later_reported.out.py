# settings: unsafe_fixes=true assume_compiled=true
# A function that imports torch itself makes `torch` its local name; above that import (or where
# only some paths import it: torchquad's `if backend == "torch": import torch`) the guard's
# `torch.compiler.is_compiling()` would raise UnboundLocalError: reported, not rewritten. Below
# an import every path runs, the guard reads the local.
import warnings


def sobol_points(count, backend):
    if count & (count - 1) != 0:
        warnings.warn(f"{count} is not a power of 2")
    if backend == "torch":
        import torch

        return torch.quasirandom.SobolEngine(2).draw(count)
    return None


def normal_points(count):
    import torch

    if not torch.compiler.is_compiling():
        warnings.warn("drawing normal points")
    return torch.randn(count, 2)
