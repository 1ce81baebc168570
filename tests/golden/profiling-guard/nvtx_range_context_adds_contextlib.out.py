import torch
import contextlib


@torch.compile
def scaled(x):
    with (torch.cuda.nvtx.range("scale") if not torch.compiler.is_compiling() else contextlib.nullcontext()):
        y = x * 2
    return y + 1
