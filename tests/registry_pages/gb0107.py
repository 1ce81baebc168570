import torch


@torch.compile(fullgraph=True)
def fn(x):
    noise = torch.zeros_like(x)
    noise.random_(0, 10)
    return x + noise


# The draws themselves differ between eager and inductor's generated code: print what holds for
# every draw (integers in [1, 11) after adding 1).
out = fn(torch.ones(4))
print(out.shape, bool(((out >= 1) & (out < 11) & (out == out.round())).all()))
