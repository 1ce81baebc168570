import torch


@torch.compile
def fn(xs):
    # comprehensions are left alone
    return [print(x) or x * 2 for x in xs]
