# settings: unsafe_fixes=true
import numpy as np
import torch


@torch.compile
def total(x):
    # `counts` is an array: `sum` of a 2-D array would add its rows, not everything.
    counts = np.ones((2, 3))
    return x * np.sum(counts)
