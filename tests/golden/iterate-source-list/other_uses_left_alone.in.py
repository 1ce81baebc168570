# settings: unsafe_fixes=true
import torch


def levels(shapes):
    out = []
    for height, width in shapes:
        out.append(height * width)
    return out, shapes.sum()


def rebinding(shapes_list):
    shapes_list = shapes_list + [(1, 1)]
    return shapes_list


@torch.compile
def model(x, shapes_list):
    shapes = torch.as_tensor(shapes_list)
    first, _ = levels(shapes)
    same = torch.as_tensor(x)
    rebound = torch.as_tensor(shapes_list)
    rebound = rebound + 1
    return x * first[0], same, levels(rebound)
