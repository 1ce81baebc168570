# GB0107's page: noise drawn into a buffer made on the line before (safe: nothing else holds it).
import torch


@torch.compile(fullgraph=True)
def fn(x):
    noise = torch.zeros_like(x)
    noise.random_(0, 10)
    return x + noise
