# settings: assume_compiled=true unsafe_fixes=true
# Tests that guard a raise or a warning are checks, not shortcuts; NumPy's allclose is not a tensor's.
import warnings

import numpy as np
import torch


def check(x, y):
    if not torch.equal(x.shape and x, y):
        raise ValueError("inputs differ")
    if torch.allclose(x, y):
        warnings.warn("inputs are the same")
    assert torch.equal(x, x)
    while (x == y).all():
        x = x + 1
    if np.allclose(x.numpy(), y.numpy()):
        x = y
    return x


def weighted(x, y):
    # The boolean tensor's value is used (a float), not only its truth: it must stay a tensor.
    if torch.all(x == y).float() * 2 > 1:
        return x
    return y
