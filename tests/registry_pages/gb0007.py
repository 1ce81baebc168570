import torch
from tqdm import tqdm


def fn(x):
    for i in tqdm(range(5)):
        x += i
    return x


compiled_fn = torch.compile(fn, fullgraph=True)
print(compiled_fn(torch.ones(3)))
