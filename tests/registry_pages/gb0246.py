import torch
import torch.nn.functional as F


@torch.compile(fullgraph=True)
def fn(labels):
    return F.one_hot(labels)


print(fn(torch.tensor([0, 1, 2])))
