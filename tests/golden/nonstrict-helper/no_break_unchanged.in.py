import torch


def pure(x):
    return x.sin() * 2


@torch.compile
def run(x):
    return pure(x)
