# settings: unsafe_fixes=true
# GB0222's page: a set of tensors passed to a decorated compiled function.
import torch


@torch.compile(fullgraph=True)
def fn(tensors):
    return sum(t.sum() for t in tensors)


total = fn({torch.ones(3), torch.full((3,), 2.0)})
