# call: step(torch.ones(2), torch.full((2,), 3.0))
import torch


def step(a, b):
    total = _step_part1(a, b)
    print("sum computed")
    diff, scaled = _step_part2(a, b, total)
    print("scaled and diffed")
    return scaled, diff


@torch.compile(dynamic=False)
def _step_part1(a, b):
    total = a + b
    return total


@torch.compile(dynamic=False)
def _step_part2(a, b, total):
    scaled = total * 2
    diff = a - b
    return diff, scaled
