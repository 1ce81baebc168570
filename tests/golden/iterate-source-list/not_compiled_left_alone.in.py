import torch


def count(shapes):
    total = 0
    for height, width in shapes:
        total += height * width
    return total


def model(x, shapes_list):
    shapes = torch.as_tensor(shapes_list)
    return x * count(shapes)
