import contextlib

import torch


@torch.compile
def fn(x):
    with contextlib.nullcontext():
        with torch.no_grad():
            x = x + 1
            torch._dynamo.graph_break()
            return x + 1


@torch.compile
def uses_autocast(x):
    with torch.autocast("cpu"), torch.inference_mode():
        y = x * 2
        print("inside autocast")
        return y
