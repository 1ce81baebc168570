# settings: unsafe_fixes=true
# call: norm(torch.ones(2, 3)); norm(torch.zeros(2, 3))
import torch


@torch.compile
def norm(x):
    def _out_if_true(x):
        length = torch.sqrt(torch.sum(x * x, -1, keepdim=True))
        out = x / length
        return out

    def _out_if_false(x):
        out = torch.zeros_like(x)
        return out

    out = torch.cond(torch.any(x > 0), _out_if_true, _out_if_false, (x,))
    return out
