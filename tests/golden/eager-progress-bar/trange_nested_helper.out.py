# settings: unsafe_fixes=true
# `trange(start, stop)` in a helper nested in a compiled function that reads a name `iterable`
# already (the new name is `iterable_2`).
import torch
from tqdm import trange


@torch.compile
def integrate(x, iterable):
    def euler(state, n):
        iterable_2 = range(1, n + 1)
        if not torch.compiler.is_compiling():
            iterable_2 = trange(1, n + 1, desc="euler")
        for _ in iterable_2:
            state = state + 0.1 * torch.tanh(state) + iterable
        return state

    return euler(x, 3)
