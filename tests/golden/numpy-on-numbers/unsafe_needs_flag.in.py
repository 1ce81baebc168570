import numpy as np
import torch


@torch.compile
def pad_to(x, a, b):
    multiple = np.lcm(a, b)
    return x.new_zeros(multiple)
