# settings: assume_compiled=true unsafe_fixes=true
# A key read from the tensor's values (`.item()`), looked up with a sentinel.
import functools

import torch


def cache_tensor(func):
    cache = {}
    sentinel = object()

    @functools.wraps(func)
    def wrapper(x):
        if torch.compiler.is_compiling():
            return func(x)
        key = (*x.shape, x.sum().item())
        result = cache.get(key, sentinel)
        if result is sentinel:
            result = func(x)
            cache[key] = result
        return result

    return wrapper
