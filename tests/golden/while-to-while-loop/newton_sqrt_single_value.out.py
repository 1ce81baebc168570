# settings: unsafe_fixes=true assume_compiled=true
# call: run(2.0); run(9.0)
import torch


def newton_sqrt(a: torch.Tensor) -> torch.Tensor:
    x = a.clone()

    def _x_while_cond(x):
        return (x * x - a).abs().max() > 1e-6

    def _x_while_body(x):
        x = 0.5 * (x + a / x)
        return x.clone(),

    (x,) = torch.while_loop(_x_while_cond, _x_while_body, (x,))
    return x


def run(value):
    return newton_sqrt(torch.full((3,), value, dtype=torch.float64))
