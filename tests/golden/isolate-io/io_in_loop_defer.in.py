# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    for step in range(3):
        x = x * 2
        print("doubled")
    return x
