# settings: unsafe_fixes=true site_lines=10,11,12,13
# Left alone: a start value, a key, a default, a `sum` that is NumPy's; and an integer length list
# with no break the run saw there (line 14).
import torch
from numpy import sum as np_sum


@torch.compile
def fn(x, lengths):
    a = sum(x.tolist(), 0.0)
    b = max(x.tolist(), key=abs)
    c = min(x.tolist(), default=0.0)
    d = np_sum(x.tolist())
    width = max(lengths.tolist())
    return x[:width] + a + b + c + d

