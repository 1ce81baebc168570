# settings: site_lines=16 called_lines=16
# A module that imports nothing (torchdiffeq's interpolation): `import torch` goes above its first
# definition.


def _interp_fit(y0, y1, dt):
    return (y1 - y0) / dt


def _interp_evaluate(coefficients, t0, t1, t):
    x = (t - t0) / (t1 - t0)
    return total(coefficients, x)


def total(coefficients, x):
    return coefficients[0] + x * coefficients[1]
