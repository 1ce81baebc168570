# settings: unsafe_fixes=true
import torch


def sizes(shapes):
    return [h * w for h, w in shapes]


def count(shapes):
    total = 0
    for height, width in shapes:
        total += height * width
    return total


@torch.compile
def model(x, shapes):
    shapes = torch.as_tensor(shapes)
    return x * count(shapes)
