# settings: assume_compiled=true
import torch


def weighted(x):
    parts = {"b": x * 2, "a": x + 1}
    ordered = sorted(parts.items(), key=lambda item: item[0], reverse=True)
    return torch.stack([value for _, value in ordered])
