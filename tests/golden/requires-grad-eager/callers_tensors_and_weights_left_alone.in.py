# settings: unsafe_fixes=true assume_compiled=true
# A parameter is the caller's tensor, a loop over parameters freezes or unfreezes weights, an
# attribute is the module's state, and `False` detaches nothing: each is left alone.
import torch


def mark(x, model):
    x.requires_grad = True
    for weight in model.parameters():
        weight.requires_grad = True
    model.scale.requires_grad = True
    y = x * 2
    y.requires_grad = False
    return y
