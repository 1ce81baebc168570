# settings: unsafe_fixes=false
# Unsafe: without --unsafe-fixes the file is unchanged.
import torch


def fn(it):
    return [a + b for a, b in it]


compiled_fn = torch.compile(fn, backend="eager", fullgraph=True)
iterator = zip(range(5), range(10))
result = compiled_fn(iterator)
