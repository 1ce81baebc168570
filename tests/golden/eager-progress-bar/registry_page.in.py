# settings: unsafe_fixes=true
# GB0007's page: tqdm in the header of a loop in a function compiled with fullgraph=True.
import torch
from tqdm import tqdm


def fn(x):
    for i in tqdm(range(5)):
        x += i
    return x


compiled_fn = torch.compile(fn, fullgraph=True)
