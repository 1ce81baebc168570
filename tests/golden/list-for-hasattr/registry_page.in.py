# settings: unsafe_fixes=true
# GB0150's page: a duck-typing helper asks a `map` iterator for `__len__`.
import torch


def collate(values):
    # Duck-typing: branch on whether we can cheaply get a length.
    if hasattr(values, "__len__"):
        return torch.zeros(len(values))
    return torch.zeros(1)


@torch.compile(fullgraph=True)
def fn(x):
    doubled = map(lambda v: v * 2, [1.0, 2.0, 3.0])
    return x + collate(doubled).sum()
