# settings: unsafe_fixes=true
# Left alone: the iterable given by keyword, a bar in a comprehension, and a loop outside any
# compiled region.
import torch
from tqdm import tqdm


@torch.compile
def f(x, items, groups):
    for item in tqdm(iterable=items):
        x = x + item
    for value in [v for group in groups for v in tqdm(group)]:
        x = x + value
    return x


def g(x, items):
    for item in tqdm(items):
        x = x + item
    return x
