# settings: site_lines=8
# GB0109's page without --unsafe-fixes: the fix is unsafe (a tensor, not a number), so no change.
import torch


@torch.compile(fullgraph=True)
def fn(x):
    return x + sum(x.tolist())
