# GB0246's page: a one-hot without a class count. Reported with the page's advice, not rewritten:
# any fixed count changes the shape unless it is the largest label + 1.
import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def fn(labels):
    return F.one_hot(labels)
