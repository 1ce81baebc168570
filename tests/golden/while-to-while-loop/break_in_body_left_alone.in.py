# settings: unsafe_fixes=true assume_compiled=true
import torch


def settle(x: torch.Tensor) -> torch.Tensor:
    while (x > 1).any():
        x = x / 2
        if (x < 0.1).all():
            break
    return x
