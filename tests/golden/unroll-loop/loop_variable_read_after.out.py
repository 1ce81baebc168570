# call: fn(torch.ones(2))
import torch


@torch.compile
def fn(x):
    def _loop_body():
        nonlocal step, x
        x = x * step
        print("step", step)
    step = 1
    _loop_body()
    step = 3
    _loop_body()
    step = 5
    _loop_body()
    return x, step
