import numpy as np
import torch


@torch.compile
def squash(x):
    # Dynamo traces NumPy through the array interface into the graph: nothing to move.
    arr = x.numpy()
    arr = np.tanh(arr)
    return torch.from_numpy(arr) + 1
