import nvtx
import torch


@torch.compile
def encode(x):
    nvtx.push_range("encode", color="blue")
    y = x.relu() * 2
    nvtx.pop_range()
    with nvtx.annotate("decode"):
        z = y - 1
    return z
