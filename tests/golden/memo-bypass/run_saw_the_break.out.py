# settings: unsafe_fixes=true site_lines=9
# Where a run saw Dynamo break in the wrapper (a key of `repr` of the arguments), without --assume-compiled.
import torch


def memoize(function):
    memo = {}
    def wrapper(*args):
        if torch.compiler.is_compiling():
            return function(*args)
        key = repr(args)
        if key not in memo:
            memo[key] = function(*args)
        return memo[key]
    return wrapper
