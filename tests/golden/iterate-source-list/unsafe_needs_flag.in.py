import torch


def sizes(shapes):
    return [h * w for h, w in shapes]


@torch.compile
def total(x, shapes_list):
    shapes = torch.tensor(shapes_list)
    return x * sum(sizes(shapes))
