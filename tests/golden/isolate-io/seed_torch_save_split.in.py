# call: f(torch.arange(3.0))
import os
import tempfile

import torch

PATH = os.path.join(tempfile.gettempdir(), "graphweld_isolate_io_foo.pt")


@torch.compile(fullgraph=True)
def f(x):
    y = x ** 2 / 2
    torch.save(y, PATH)
    z = y ** 3 / 6
    return z
