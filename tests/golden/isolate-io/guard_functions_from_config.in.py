# settings: guard_functions=warnings.warn
import warnings

import torch


@torch.compile
def fn(x, legacy: bool):
    if legacy:
        warnings.warn("`legacy=True` is deprecated", FutureWarning)
    return x + 1
