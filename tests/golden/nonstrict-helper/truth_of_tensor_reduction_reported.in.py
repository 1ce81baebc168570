# settings: site_lines=5,11 called_lines=5,11


def total(coefficients, x):
    return coefficients[0] + x * coefficients[1] if bool(x.isfinite().all()) else coefficients[0]


def clamp_if_any_negative(x):
    if (x < 0).any():
        x = x.clamp(min=0)
    return x * 2


def evaluate(coefficients, t0, t1, t):
    return clamp_if_any_negative(total(coefficients, (t - t0) / (t1 - t0)))
