# settings: site_lines=6
import torch


def upsample_ids(ids):
    doubled = ids.repeat_interleave(2)
    return doubled


@torch.compile
def expand(x, ids):
    return x[upsample_ids(ids)]
