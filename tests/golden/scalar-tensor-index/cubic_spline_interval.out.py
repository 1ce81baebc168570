# settings: site_lines=23,29,30,31,36,37
# torchcde's cubic spline: the interval of a time found with `bucketize`, then the knots and the
# coefficients of that interval read with the 0-dim index (a run saw each of these lines break).
import torch
from torch import nn


class CubicSpline(nn.Module):
    def __init__(self, knots, coeffs):
        super().__init__()
        self.register_buffer("_t", knots)
        a, b, two_c, three_d = coeffs
        self.register_buffer("_a", a)
        self.register_buffer("_b", b)
        self.register_buffer("_two_c", two_c)
        self.register_buffer("_three_d", three_d)

    def _interpret_t(self, t):
        t = torch.as_tensor(t, dtype=self._b.dtype, device=self._b.device)
        maxlen = self._b.size(-2) - 1
        index = torch.bucketize(t.detach(), self._t.detach()).sub(1).clamp(0, maxlen)
        # the last knot is never an interval's start
        fractional_part = t - self._t[index[None]].squeeze(0)
        return fractional_part, index

    def evaluate(self, t):
        fractional_part, index = self._interpret_t(t)
        fractional_part = fractional_part.unsqueeze(-1)
        inner = 0.5 * self._two_c[..., index[..., None], :].squeeze(-2) + self._three_d[..., index[..., None], :].squeeze(-2) * fractional_part / 3
        inner = self._b[..., index[..., None], :].squeeze(-2) + inner * fractional_part
        return self._a[..., index[..., None], :].squeeze(-2) + inner * fractional_part

    def derivative(self, t):
        fractional_part, index = self._interpret_t(t)
        fractional_part = fractional_part.unsqueeze(-1)
        inner = self._two_c[..., index[..., None], :].squeeze(-2) + self._three_d[..., index[..., None], :].squeeze(-2) * fractional_part
        return self._b[..., index[..., None], :].squeeze(-2) + inner * fractional_part


@torch.compile
def vector_field(spline, t, z):
    return torch.tanh(z) * spline.derivative(t).sum(-1, keepdim=True) + spline.evaluate(t)
