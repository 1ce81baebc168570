# settings: assume_compiled=true
# I/O under isolate-io's guard never runs compiled: nothing in the `try` breaks, so nothing is
# split and nothing is reported.
import torch


def load(x):
    try:
        y = x * 2
        if not torch.compiler.is_compiling():
            print("loaded", y.shape)
        return y
    except RuntimeError:
        return x
