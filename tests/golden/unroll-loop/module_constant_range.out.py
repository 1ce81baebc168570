# call: fn(torch.ones(2))
import torch
import torch._dynamo as dynamo

NUM_STEPS = 2


@torch.compile(fullgraph=False)
def fn(x):
    def _loop_body(k):  # refine twice
        nonlocal x
        x = x.sin() + k
        dynamo.graph_break()
    _loop_body(0)
    _loop_body(1)
    return x
