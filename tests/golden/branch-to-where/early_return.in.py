# settings: unsafe_fixes=true assume_compiled=true
# call: step_size(torch.tensor(0.1), torch.tensor(0.0), torch.tensor(10.0), torch.tensor(0.2)); step_size(torch.tensor(0.1), torch.tensor(0.5), torch.tensor(10.0), torch.tensor(0.2)); step_size(torch.tensor(0.1), torch.tensor(2.0), torch.tensor(10.0), torch.tensor(0.2)); positive_fraction(torch.zeros(4)); positive_fraction(torch.tensor([1.0, 0.0, 2.0, 0.0]))
import torch


def step_size(last_step: torch.Tensor, error_ratio: torch.Tensor, ifactor: torch.Tensor, dfactor: torch.Tensor):
    # torchdiffeq's adaptive step: a step without error grows by the largest factor.
    if error_ratio == 0:
        return last_step * ifactor
    dfactor = torch.where(error_ratio < 1, torch.ones_like(dfactor), dfactor)
    error_ratio = error_ratio.type_as(last_step)
    factor = torch.min(ifactor, torch.max(0.9 / error_ratio**0.2, dfactor))
    return last_step * factor


def positive_fraction(scores: torch.Tensor):
    # A metric with nothing to count returns zero early.
    total = scores.abs().sum()
    if total == 0:
        return torch.zeros_like(total)
    return (scores > 0).sum() / total
