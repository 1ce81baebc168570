# settings: unsafe_fixes=true assume_compiled=true
# call: check(torch.arange(4.0)); check(torch.arange(4.0).flip(0))
import torch


def check(t: torch.Tensor):
    # torchdiffeq's check that the times are monotonic: Python's `or` and `not` ask for the value.
    diff = t[1:] > t[:-1]
    assert diff.all() or (~diff).all(), "{} must be strictly increasing or decreasing".format("t")
    assert not t.isnan().any(), "t has NaN"
    return t * 2
