# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=10
import torch


def fixed_point(f, x, steps=30, tol=1e-6):
    for i in range(steps):
        x_next = f(x)
        delta = (x_next - x).abs().max()
        x = x_next
        if delta < tol:
            break
    return x, i
