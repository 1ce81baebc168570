# settings: site_lines=5 called_lines=5


def total(coefficients, x):
    return coefficients[0] + x * coefficients[1] if bool(x.isfinite().all()) else coefficients[0]


def evaluate(coefficients, t0, t1, t):
    return total(coefficients, (t - t0) / (t1 - t0))
