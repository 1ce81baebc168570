import warnings

import torch


@torch.compile
def embed(x, device=None):
    if device is not None:
        warnings.warn(
            "The `device` argument is deprecated and will be removed in v5 of Transformers.", FutureWarning
        )
    if x.dtype == torch.float64:
        warnings.warn("float64 input is slow", UserWarning, 2)
    return x * 2
