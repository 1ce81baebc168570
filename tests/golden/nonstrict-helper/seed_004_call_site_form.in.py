import torch


# this is a function that Dynamo doesn't support (due to the graph_break() call).
def g(x):
    y = x.sin()
    torch._dynamo.graph_break()
    z = y.sin()
    return z


@torch.compile(fullgraph=True)
def f(x):
    w = x.sin()
    return g(w)


def eager_reference(x):
    # g is also used outside compiled code, so only the compiled call site changes
    return g(x.sin())
