# call: step(torch.ones(2), torch.full((2,), 3.0))
import torch


@torch.compile(dynamic=False)
def step(a, b):
    total = a + b
    print("sum computed")
    scaled = total * 2
    diff = a - b
    print("scaled and diffed")
    return scaled, diff
