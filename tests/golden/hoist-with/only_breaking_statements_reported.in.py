# settings: unsafe_fixes=true
import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile
def fn(x):
    with Ctx():
        print("entering")
    return x + 1
