# settings: unsafe_fixes=true
# `.type(torch.float64)` and `.to(dtype=...)` in a helper nested in a compiled function, under an
# alias of torch.
import torch as th


@th.compile
def quantise(x, scale):
    def rounded(values):
        values = values.detach().type(th.float64)
        values = th.round(values * scale)
        values = values.detach().to(dtype=th.int16)
        return values

    return rounded(x.clone())
