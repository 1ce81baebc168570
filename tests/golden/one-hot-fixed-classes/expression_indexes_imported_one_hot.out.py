# call: slots(torch.tensor([[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]]))
import torch
from torch.nn.functional import one_hot


@torch.compile
def slots(mask):
    # Each token's slot is its rank among the kept tokens; slots past 2 are dropped.
    ranks = mask.cumsum(dim=-1).long() - 1
    return one_hot((ranks * mask.long()).clamp(max=2), 2 + 1)[..., :2] * mask[..., None].long()
