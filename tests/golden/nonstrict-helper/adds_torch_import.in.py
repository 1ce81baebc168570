import sys

from torch import compile as compile_fn


def depth(x):
    frame = sys._getframe()
    return x * (frame is not None)


def run(x):
    return depth(x) + 1


fast = compile_fn(run)
