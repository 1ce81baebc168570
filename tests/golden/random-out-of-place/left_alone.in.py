# No equivalent: `random_()` without bounds (its range depends on the dtype), a generator, and a
# draw used as a value.
import torch


@torch.compile
def draw(x, generator):
    a = torch.zeros_like(x)
    a.random_()
    b = torch.zeros_like(x)
    b.random_(0, 5, generator=generator)
    c = torch.zeros_like(x).random_(0, 3)
    return a + b + c
