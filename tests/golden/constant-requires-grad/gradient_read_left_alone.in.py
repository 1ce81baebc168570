# settings: unsafe_fixes=true
import torch


@torch.compile
def shift_sensitivity(x):
    # The gradient with respect to the shift is what is asked for: the flag matters.
    shift = torch.zeros(1, requires_grad=True)
    y = (x + shift).pow(2).sum()
    (grad,) = torch.autograd.grad(y, [shift])
    return grad
