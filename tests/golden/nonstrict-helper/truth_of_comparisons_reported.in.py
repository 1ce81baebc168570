# settings: site_lines=9,13 called_lines=9,13
# nonstrict_trace runs a helper on tensors without values: a Python truth value of tensor
# comparisons (torchsde's check that times increase; an equality check of two states) cannot be
# its result (GB0251 at every call), so such helpers are reported.
import torch


def is_strictly_increasing(ts):
    return all(x < y for x, y in zip(ts[:-1], ts[1:]))


def same_state(a, b):
    return bool(a == b)


@torch.compile
def integrate(y0: torch.Tensor, ts: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
    if not is_strictly_increasing(ts) or not same_state(state, state):
        raise ValueError("times must increase")
    return y0 * ts[-1]
