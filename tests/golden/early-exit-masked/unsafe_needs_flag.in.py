# settings: assume_compiled=true data_dependent_lines=10
import torch


def halve_until_small(x, steps=8, tol=0.1):
    size = x.norm()
    for _ in range(steps):
        x = x / 2
        size = x.norm()
        if size < tol:
            break
    return x, size
