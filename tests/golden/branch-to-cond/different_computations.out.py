# settings: unsafe_fixes=true
# call: combine(torch.ones(3), torch.arange(3.0)); combine(-torch.ones(3), torch.arange(3.0))
import torch


@torch.compile
def combine(x, y):
    total = torch.sum(x)

    def _out_if_true(x, y):
        scaled = x * 2
        out = scaled + y
        return out

    def _out_if_false(x, y):
        out = x - y.mean()
        return out

    out = torch.cond(total > 0, _out_if_true, _out_if_false, (x, y))
    return out * 3
