import torch


@torch.compile
def fn(x):
    for step in range(2):
        x = x + 1
        print(f"{x.sum().item()} at step {step}")
    return x
