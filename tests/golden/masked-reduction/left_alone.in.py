# settings: unsafe_fixes=true site_lines=10,11,12,13
# Left alone (a run saw breaks at each line): an integer index (it gathers), a mean over a mask
# expression (it would be computed twice), a reduction with a `dim`, a slice.
import torch


@torch.compile
def fn(x, scores):
    order = scores.argsort()
    a = x[order].sum()
    b = x[scores > 0].mean()
    c = x[scores > 0].sum(dim=0)
    d = x[1:].sum()
    return a, b, c, d
