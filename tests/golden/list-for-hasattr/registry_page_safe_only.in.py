# settings: unsafe_fixes=false
# GB0150's page without --unsafe-fixes: the fix is unsafe (hasattr may answer otherwise): no change.
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
