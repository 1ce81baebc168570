# settings: unsafe_fixes=true assume_compiled=true
# call: log_prob_normal_in(torch.tensor([-3.0, 0.5]), torch.tensor([-1.0, 4.0])); log_prob_normal_in(torch.tensor([-1.0]), torch.tensor([0.5]))
# botorch's log_prob_normal_in (utils/probability/utils.py): bounds whose upper tail is larger are
# swapped and negated, for the accuracy of the left tail; through a temporary, so the new `b` reads
# the old `a`.
import torch
from torch.special import log_ndtr


def log_prob_normal_in(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    rev_cond = b.abs() > a.abs()
    if torch.compiler.is_compiling() or rev_cond.any():
        c = torch.where(rev_cond, -b, a)
        b = torch.where(rev_cond, -a, b)
        a = c
    return log_ndtr(b) + torch.log1p(-torch.exp(log_ndtr(a) - log_ndtr(b)))
