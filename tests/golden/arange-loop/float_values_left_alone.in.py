# settings: assume_compiled=true
# Floats: `range` refuses them. A loop whose variable is never an index, over bounds the code does
# not show are whole numbers, may be over floats too.
import torch


def quadrature(f, x):
    total = 0.0
    for w in torch.arange(0.0, 1.0, 0.25):
        total = total + f(x * w)
    return total


def thresholds(x, levels, limit):
    count = x.new_zeros(())
    for level in torch.arange(levels, dtype=torch.float32):
        if level < limit:
            count = count + (x > level).sum()
    return count


def steps_below(x, n):
    for k in torch.arange(n):
        if k < 2:
            x = x + 1
    return x
