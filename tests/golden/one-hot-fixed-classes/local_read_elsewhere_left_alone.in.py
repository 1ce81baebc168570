import torch
import torch.nn.functional as F


@torch.compile
def one_hot_with_count(indexes, max_length):
    classes = max(indexes.max() + 1, max_length)
    return F.one_hot(indexes, classes)[..., :max_length], classes
