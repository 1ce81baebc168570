# settings: unsafe_fixes=true assume_compiled=true
# call: initial_step(torch.tensor(0.5), torch.tensor(2.0), torch.tensor(0.1)); initial_step(torch.tensor(0.0), torch.tensor(0.0), torch.tensor(0.1)); step_limit(torch.tensor(3.0), torch.tensor(-0.5), torch.tensor(1.4)); step_limit(torch.tensor(3.0), torch.tensor(0.5), torch.tensor(1.4))
import torch


def initial_step(d1: torch.Tensor, d2: torch.Tensor, h0: torch.Tensor, order: int = 4):
    # torchdiffeq's initial step size: Python's max of two norms, which Dynamo traces as torch.maximum.
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = torch.max(torch.tensor(1e-6), h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / float(order + 1))
    return torch.min(100 * h0, h1)


def step_limit(factor: torch.Tensor, error: torch.Tensor, limit: torch.Tensor):
    # Python's abs and min of tensors are traced too.
    if error < 0:
        factor = min(limit, abs(error) * factor)
    return factor


def largest(values: list, error: torch.Tensor):
    # max over one iterable is not taken.
    if error < 0:
        top = max(values)
    else:
        top = values[0]
    return top


def clamp_to_number(factor: torch.Tensor, error: torch.Tensor):
    # min of a number written out gives the float itself where it is the smaller: not taken.
    if error < 0:
        factor = min(1.4, factor)
    return factor
