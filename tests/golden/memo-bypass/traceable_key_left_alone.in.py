# settings: assume_compiled=true unsafe_fixes=true
# A key Dynamo traces (the arguments themselves, a shape): nothing breaks, nothing to change.
import functools

import torch


def memoize(method):
    cache = {}

    @functools.wraps(method)
    def wrapper(x, n):
        key = (tuple(x.shape), n)
        if key not in cache:
            cache[key] = method(x, n)
        return cache[key]

    return wrapper
