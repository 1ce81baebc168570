# settings: unsafe_fixes=true
# call: observe(torch.arange(1.0, 5.0)); observe(torch.ones(3))
import torch


@torch.compile
def observe(x: torch.Tensor):
    x_min = x.min()
    x_max = x.max()
    # IBert's activation observer, in training.
    torch._assert_async(
        x_max.isnan().sum() == 0,
        "NaN detected when computing min/max of the activation",
    )
    torch._assert_async(
        x_min.isnan().sum() == 0,
        "NaN detected when computing min/max of the activation",
    )
    torch._assert_async(x.sum() > 0)
    return x_max - x_min
