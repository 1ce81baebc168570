# settings: assume_compiled=true
# No index, but bounds the code shows are whole numbers: the step only picks a branch.
import torch


def warmup(x, weights):
    for k in range(len(weights)):
        if k < 2:
            x = x * 0.5
        else:
            x = x + 1
    return x
