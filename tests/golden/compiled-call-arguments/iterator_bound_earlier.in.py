# settings: unsafe_fixes=true
# GB0156's page as it is written: the iterator made first, the compiled function after it, then
# the call.
import torch


def fn(it):
    return [a + b for a, b in it]


iterator = zip(range(5), range(10))
compiled_fn = torch.compile(fn, backend="eager", fullgraph=True)
result = compiled_fn(iterator)
