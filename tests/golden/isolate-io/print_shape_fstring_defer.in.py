import torch


@torch.compile
def fn(x):
    if x.dim() > 1:
        # not constant: no safe way to keep this print out of the graph
        print(f"shape {x.shape}")
    return x + 1
