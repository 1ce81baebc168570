# settings: unsafe_fixes=true
# Left alone: an `enumerate` (Dynamo answers hasattr on it), a name used between its binding and
# the call, a helper that never calls hasattr, a helper defined elsewhere, and eager code.
import torch
from helpers import collate_elsewhere


def sized(values):
    return hasattr(values, "__len__")


def plain(values):
    return list(values)


@torch.compile
def fn(x, xs):
    a = sized(enumerate(xs))
    pairs = zip(xs, xs)
    first = next(pairs)
    b = sized(pairs)
    c = plain(map(float, xs))
    d = collate_elsewhere(map(float, xs))
    return x, a, first, b, c, d


def eager(xs):
    return sized(map(float, xs))
