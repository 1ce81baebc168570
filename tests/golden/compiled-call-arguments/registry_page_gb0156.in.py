# settings: unsafe_fixes=true
# GB0156's page: an iterator made outside, bound just before the call of the compiled function.
import torch


def fn(it):
    return [a + b for a, b in it]


compiled_fn = torch.compile(fn, backend="eager", fullgraph=True)
iterator = zip(range(5), range(10))
result = compiled_fn(iterator)
