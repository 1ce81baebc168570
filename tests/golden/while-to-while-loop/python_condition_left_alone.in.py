# settings: unsafe_fixes=true assume_compiled=true
import torch


def halve(x: torch.Tensor, times: int) -> torch.Tensor:
    while times > 0:
        x = x / 2
        times = times - 1
    return x
