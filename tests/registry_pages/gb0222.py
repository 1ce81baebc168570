import torch


@torch.compile(fullgraph=True)
def fn(tensors):
    return sum(t.sum() for t in tensors)


print(fn({torch.ones(3), torch.full((3,), 2.0)}))
