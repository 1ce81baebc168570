import torch


@torch.compile
def fn(x):
    if x.dim() > 1:
        # the shape is formatted in the graph; the wrapper prints the text
        print(f"shape {x.shape}")
    return x + 1
