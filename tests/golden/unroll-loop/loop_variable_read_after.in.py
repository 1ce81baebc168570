# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    for step in range(1, 7, 2):
        x = x * step
        print("step", step)
    return x, step
