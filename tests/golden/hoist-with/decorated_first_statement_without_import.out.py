# A module whose first statement is a decorated function and which imports nothing: `import torch`
# goes above the decorator, not between it and `def`.
import torch


@torch.compile
def fn(x):
    with CustomCtxManager():
        x = x + 1
    torch._dynamo.graph_break()
    with CustomCtxManager():
        return x + 1
