import torch
import torch.nn.functional as F


@torch.compile
def one_hot_fixed(indexes, max_length):
    return F.one_hot(indexes.clamp(max=max_length), max_length + 1)[..., :max_length]
