# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=11
import torch


def newton(x, target):
    y = x.clone()
    for _ in range(1000):
        y_next = y - (y * y - target) / (2 * y)
        step = (y_next - y).abs().max()
        y = y_next
        if step < 1e-7:
            break
    return y
