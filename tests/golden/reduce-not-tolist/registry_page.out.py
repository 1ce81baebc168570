# settings: unsafe_fixes=true site_lines=8
# GB0109's page: the compiled function adds the sum of its input's values (the run saw the break).
import torch


@torch.compile(fullgraph=True)
def fn(x):
    return x + x.detach().sum()
