# settings: select=isolate-io,unroll-loop
import torch


@torch.compile
def scale_all(x):
    for scale in (0.5, 2.0):
        print("scaled by", scale)
        x = x * scale
    return x
