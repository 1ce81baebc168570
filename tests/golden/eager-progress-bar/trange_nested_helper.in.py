# settings: unsafe_fixes=true
# `trange(start, stop)` in a helper nested in a compiled function that reads a name `iterable`
# already (the new name is `iterable_2`).
import torch
from tqdm import trange


@torch.compile
def integrate(x, iterable):
    def euler(state, n):
        for _ in trange(1, n + 1, desc="euler"):
            state = state + 0.1 * torch.tanh(state) + iterable
        return state

    return euler(x, 3)
