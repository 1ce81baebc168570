# settings: unsafe_fixes=true
# call: scale(torch.ones(3)); scale(torch.full((2,), 4.0))
import torch


@torch.compile
def scale(x):
    n = x.sum().item()
    torch._check(torch.sym_not(n > 10), lambda: "too large")
    torch._check(torch.sym_not(x.max().item() < 0))
    return x * n
