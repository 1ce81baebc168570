import sys

from torch import compile as compile_fn


def flat(x):
    name = sys._getframe().f_code.co_name
    if x.dim() == 0:
        raise ValueError(f"{name} needs a tensor with dimensions")
    return x.flatten()


def run(x):
    return flat(x) + 1


fast = compile_fn(run)
