import torch


# this is a function that Dynamo doesn't support (due to the graph_break() call).
@torch._dynamo.nonstrict_trace
def g(x):
    y = x.sin()
    torch._dynamo.graph_break()
    z = y.sin()
    return z


@torch.compile(fullgraph=True)
def f(x):
    w = x.sin()
    return g(w)


x = torch.randn(3)
try:
    f(x)  # Graph Break: there was a call to torch._dynamo.graph_break()
except Exception as e:
    print(e)
