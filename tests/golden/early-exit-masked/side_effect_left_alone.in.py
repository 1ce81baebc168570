# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=12
import torch


def solve(A, b, steps=10, tol=1e-8):
    x = torch.zeros_like(b)
    residuals = []
    for _ in range(steps):
        r = b - A @ x
        x = x + 0.5 * r
        residuals.append(r.norm())
        if r.norm() < tol:
            break
    return x, residuals
