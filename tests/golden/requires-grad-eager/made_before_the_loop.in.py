# settings: unsafe_fixes=true
# A tensor made before a loop and flagged inside it is the function's own; one flagged before
# it is assigned is still the caller's, and a helper defined inside is a scope of its own.
import torch


@torch.compile
def encode(features, steps, training=True):
    if training:
        features.requires_grad_()
    hidden = features * 2
    for _ in range(steps):
        if training:
            hidden.requires_grad_()
        hidden = hidden.tanh()

    def inner(x):
        if training:
            x.requires_grad = True
        return x

    return inner(hidden).sum()
