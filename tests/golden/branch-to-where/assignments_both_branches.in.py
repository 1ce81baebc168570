# settings: unsafe_fixes=true
# call: scale(t.ones(3) * 2, t.tensor(1.0)); scale(t.ones(3) * 0.1, t.tensor(1.0))
import torch as t


@t.compile
def scale(x, limit):
    total = t.abs(x).sum()
    if total > limit:
        factor = limit / total
        offset = x.mean()
    else:
        factor = t.ones_like(total)
        offset = x.mean()
    return x * factor - offset
