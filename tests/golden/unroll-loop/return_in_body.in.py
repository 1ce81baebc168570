# call: first_above(torch.tensor([0.5, 3.0])); first_above(torch.tensor([0.1, 0.2]))
import torch


@torch.compile
def first_above(x):
    for threshold in (4, 2, 1):
        print("checking", threshold)
        if threshold < 3:
            return x * threshold
    return None
