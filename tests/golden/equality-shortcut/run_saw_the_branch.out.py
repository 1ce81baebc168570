# settings: unsafe_fixes=true site_lines=7 data_dependent_lines=7
# Where a run saw data-dependent branching on the test, without --assume-compiled.
import torch


def symmetric(x1, x2):
    if not torch.compiler.is_compiling() and (x1 == x2).all():
        return x1 @ x1.mT
    return x1 @ x2.mT
