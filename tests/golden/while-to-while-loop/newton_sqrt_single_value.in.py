# settings: unsafe_fixes=true assume_compiled=true
# call: run(2.0); run(9.0)
import torch


def newton_sqrt(a: torch.Tensor) -> torch.Tensor:
    x = a.clone()
    while (x * x - a).abs().max() > 1e-6:
        x = 0.5 * (x + a / x)
    return x


def run(value):
    return newton_sqrt(torch.full((3,), value, dtype=torch.float64))
