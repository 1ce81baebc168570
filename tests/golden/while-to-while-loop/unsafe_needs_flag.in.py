# settings: assume_compiled=true
import torch


def newton_sqrt(a: torch.Tensor) -> torch.Tensor:
    x = a.clone()
    while (x * x - a).abs().max() > 1e-6:
        x = 0.5 * (x + a / x)
    return x
