import random

import torch


def jitter(x):
    torch._dynamo.graph_break()
    return x + random.random()


@torch.compile
def run(x):
    return jitter(x)
