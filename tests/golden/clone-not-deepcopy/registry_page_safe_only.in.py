# settings: site_lines=9
# The fix is unsafe: without --unsafe-fixes the file is unchanged.
import copy
import torch


@torch.compile(fullgraph=True)
def fn(x):
    saved = copy.deepcopy(x)
    return x + saved
