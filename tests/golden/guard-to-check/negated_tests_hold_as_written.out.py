# settings: unsafe_fixes=true
# call: normalize(torch.ones(3)); normalize(torch.arange(3.0))
import torch


@torch.compile
def normalize(x: torch.Tensor):
    finite = torch.isfinite(x).all()
    # `not t` holds when `t` does: checked as it is, never `logical_not(not t)`.
    torch._assert_async(finite, "input has inf")
    torch._assert_async(torch.logical_and(x.abs().sum() >= 0, finite), "negative norm")
    return x
