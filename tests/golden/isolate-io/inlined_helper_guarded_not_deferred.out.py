# settings: unsafe_fixes=true
import torch


def report_norm(h):
    if not torch.compiler.is_compiling():
        print("norm", h.norm())
    return h


@torch.compile
def fn(x):
    return report_norm(x * 2) + 1
