# settings: unsafe_fixes=true
# Left alone: a function not compiled in this module, a list already, an iterator consumed in
# part between its binding and the call, and a starred argument.
import torch

compiled = torch.compile(lambda xs: [x * 2 for x in xs])


def plain(xs):
    return list(xs)


def run(xs):
    a = plain(zip(xs, xs))
    b = compiled([1, 2])
    pairs = zip(xs, xs)
    c = next(pairs)
    d = compiled(pairs)
    e = compiled(*[xs])
    return a, b, c, d, e
