# Left alone: a flag set in a loop, in a nested function, an attribute's flag, and a function
# that is not compiled.
import torch


@torch.compile
def looped(xs):
    for x in xs:
        x.requires_grad_()
    return [x * 2 for x in xs]


@torch.compile
def nested(x):
    def inner(y):
        y.requires_grad = True
        return y

    return inner(x) * 2


@torch.compile
def attribute(holder):
    holder.weight.requires_grad = False
    return holder.weight * 2


def eager(x):
    x.requires_grad = True
    return x * 2
