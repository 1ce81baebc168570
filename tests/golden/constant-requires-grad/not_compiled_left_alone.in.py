# settings: unsafe_fixes=true
import torch


def penalty(weights):
    total = torch.tensor(0.0, requires_grad=True)
    for weight in weights:
        total = total + weight.norm()
    return total
