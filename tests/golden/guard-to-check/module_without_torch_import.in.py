# settings: unsafe_fixes=true site_lines=13,20 data_dependent_lines=13,20
# A helper module that only calls tensor methods and imports nothing (torchdiffeq's and
# torchsde's interpolation): the check needs `import torch`, added above the first definition.


def _interp_fit(y0, y1, dt):
    return (y1 - y0) / dt


# Polynomial interpolation, as torchdiffeq writes it.
def _interp_evaluate(coefficients, t0, t1, t):
    """Evaluate the interpolant at `t`."""
    assert (t0 <= t) & (t <= t1), "invalid interpolation, fails `t0 <= t <= t1`: {}, {}, {}".format(t0, t, t1)
    x = (t - t0) / (t1 - t0)
    return coefficients[0] + x * coefficients[1]


def linear_interp(t0, y0, t1, y1, t):
    # torchsde's: a chained comparison is two checks, the time in the middle read twice.
    assert t0 <= t <= t1, f"Incorrect time order for linear interpolation: t0={t0}, t={t}, t1={t1}."
    return (t1 - t) / (t1 - t0) * y0 + (t - t0) / (t1 - t0) * y1
