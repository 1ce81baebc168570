import cupy as cp
import torch


@torch.compile
def scaled_abs(x):
    arr = cp.asarray(x)
    arr = cp.abs(arr)
    return torch.as_tensor(arr, device="cuda") + 1
