# settings: unsafe_fixes=true assume_compiled=true
# call: interpolate(torch.tensor(0.0), torch.tensor(0.5), torch.tensor(1.0), torch.ones(3), torch.zeros(3))
# call: check_window(torch.tensor([0, 3, 4]), 4)
import torch


def interpolate(t0: torch.Tensor, t: torch.Tensor, t1: torch.Tensor, y0: torch.Tensor, y1: torch.Tensor):
    # torchsde's interpolation: the message formats the times the check is about.
    if t0 > t1:
        raise ValueError(f"Initial time {t0} should be less than terminal time {t1}.")
    return (t1 - t) / (t1 - t0) * y0 + (t - t0) / (t1 - t0) * y1


def check_window(offsets: torch.Tensor, size: int):
    # monai's input-size check, with a message made of an f-string and a literal.
    assert (offsets < size).all(), (
        f"offsets {offsets.tolist()} must lie inside the window of {size}"
        " (pad the input first)"
    )
    return offsets * 2
