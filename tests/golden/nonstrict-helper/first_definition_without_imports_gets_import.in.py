# settings: site_lines=5 called_lines=5
# A helper module that imports nothing (it only calls tensor methods) and starts with the helper.


def total(coefficients, x):
    return coefficients[0] + x * coefficients[1]


def evaluate(coefficients, t0, t1, t):
    return total(coefficients, (t - t0) / (t1 - t0))
