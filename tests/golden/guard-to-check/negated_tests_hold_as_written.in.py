# settings: unsafe_fixes=true
# call: normalize(torch.ones(3)); normalize(torch.arange(3.0))
import torch


@torch.compile
def normalize(x: torch.Tensor):
    finite = torch.isfinite(x).all()
    # `not t` holds when `t` does: checked as it is, never `logical_not(not t)`.
    if not finite:
        raise ValueError("input has inf")
    if not (x.abs().sum() >= 0 and finite):
        raise RuntimeError("negative norm")
    return x
