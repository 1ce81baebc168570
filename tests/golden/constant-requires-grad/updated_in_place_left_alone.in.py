# settings: unsafe_fixes=true
import torch


@torch.compile
def total(parts):
    acc = torch.zeros(1, requires_grad=True)
    with torch.no_grad():
        for part in parts:
            acc.add_(part.sum())
    return acc
