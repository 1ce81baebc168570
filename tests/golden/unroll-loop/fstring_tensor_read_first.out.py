import torch


@torch.compile
def fn(x):
    def _loop_body(step):
        nonlocal x
        x = x + 1
        print(f"{x.sum().item()} at step {step}")
    _loop_body(0)
    _loop_body(1)
    return x
