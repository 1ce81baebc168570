# settings: unsafe_fixes=true
# Without a run that saw the break, and with no operand the code shows is a tensor, the number is
# left a number: `offset` and `count` may be Python numbers (a running total, a size).
import torch


@torch.compile
def fn(x, offset, count):
    mean = x.mean().item()
    total = offset + mean
    return x[: int(count - x.std().item())], total
