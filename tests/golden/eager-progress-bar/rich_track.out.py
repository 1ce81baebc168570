# settings: unsafe_fixes=true
# rich's `track`, a progress bar that yields its sequence's items unchanged.
import torch
from rich.progress import track


@torch.compile
def accumulate(x, weights):
    total = torch.zeros_like(x)
    iterable = weights
    if not torch.compiler.is_compiling():
        iterable = track(iterable, description="weights")
    for w in iterable:
        total = total + w * x
    return total
