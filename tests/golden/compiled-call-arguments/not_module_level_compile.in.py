# settings: unsafe_fixes=true
# A name bound to torch.compile(...) inside a function is not known as compiled here.
import torch


def run(fn, xs):
    compiled = torch.compile(fn)
    return compiled(zip(xs, xs))
