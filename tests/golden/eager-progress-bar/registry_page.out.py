# settings: unsafe_fixes=true
# GB0007's page: tqdm in the header of a loop in a function compiled with fullgraph=True.
import torch
from tqdm import tqdm


def fn(x):
    iterable = range(5)
    if not torch.compiler.is_compiling():
        iterable = tqdm(iterable)
    for i in iterable:
        x += i
    return x


compiled_fn = torch.compile(fn, fullgraph=True)
