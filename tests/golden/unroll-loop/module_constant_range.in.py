# call: fn(torch.ones(2))
import torch
import torch._dynamo as dynamo

NUM_STEPS = 2


@torch.compile(fullgraph=False)
def fn(x):
    for k in range(NUM_STEPS):  # refine twice
        x = x.sin() + k
        dynamo.graph_break()
    return x
