# settings: unsafe_fixes=true
# Nothing compiles this module: its tests run eagerly, where they break nothing.
import torch


def symmetric(x1, x2):
    if torch.equal(x1, x2):
        return x1 @ x1.mT
    return x1 @ x2.mT
