import torch


@torch.compile
def fn(x, debug: bool):
    try:
        x = x + 1
        if debug:
            print(x)
    except ValueError:
        raise
    return x
