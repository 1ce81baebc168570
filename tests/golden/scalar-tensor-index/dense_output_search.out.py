# settings: unsafe_fixes=true site_lines=17,18,19
# torchdiffeq's dense output: the step a time falls in, found with `searchsorted`, then the step's
# ends and interpolation coefficients read with `idx - 1` and `idx` (0-dim for one time).
import torch


def _interp_evaluate(coefficients, t0, t1, t):
    x = (t - t0) / (t1 - t0)
    total = coefficients[0] + x * coefficients[1]
    return total + x * x * coefficients[2]


def dense_output(times, interp_coeffs):
    @torch.compile
    def dense_output_fn(t_eval):
        idx = torch.searchsorted(times, t_eval, side="right")
        t0 = times[(idx - 1)[None]].squeeze(0)
        t1 = times[idx[None]].squeeze(0)
        coef = [interp_coeffs[(idx - 1)[None]].squeeze(0)[i] for i in range(interp_coeffs.shape[1])]
        return _interp_evaluate(coef, t0, t1, t_eval)

    return dense_output_fn
