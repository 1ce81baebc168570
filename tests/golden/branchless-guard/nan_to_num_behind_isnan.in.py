# call: clean(torch.tensor([1.0, float("nan"), float("inf")])); clean(torch.tensor([1.0, float("inf")]))
import torch


@torch.compile
def clean(x):
    x = x - 1
    if torch.isnan(x).any():
        x = torch.nan_to_num(x, nan=0.0)
    return x
