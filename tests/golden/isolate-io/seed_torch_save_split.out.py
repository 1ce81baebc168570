# call: f(torch.arange(3.0))
import os
import tempfile

import torch

PATH = os.path.join(tempfile.gettempdir(), "graphweld_isolate_io_foo.pt")


def f(x):
    y = _f_part1(x)
    torch.save(y, PATH)
    return _f_part2(y)


@torch.compile(fullgraph=True)
def _f_part1(x):
    y = x ** 2 / 2
    return y


@torch.compile(fullgraph=True)
def _f_part2(y):
    z = y ** 3 / 6
    return z
