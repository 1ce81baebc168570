# settings: unsafe_fixes=false
# Unsafe (compiled runs show no bar): without --unsafe-fixes the file is unchanged.
import torch
from tqdm import tqdm


def fn(x):
    for i in tqdm(range(5)):
        x += i
    return x


compiled_fn = torch.compile(fn, fullgraph=True)
