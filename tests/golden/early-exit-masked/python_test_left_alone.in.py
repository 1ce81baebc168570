# settings: unsafe_fixes=true assume_compiled=true
import torch


def first_rows(x, limit=5):
    total = torch.zeros(x.shape[1])
    for row in range(x.shape[0]):
        total = total + x[row]
        if row >= limit:
            break
    return total
