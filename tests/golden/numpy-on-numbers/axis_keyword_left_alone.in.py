# settings: unsafe_fixes=true
import numpy as np
import torch


@torch.compile
def scale(x, sizes):
    return x * np.prod(sizes, axis=0)
