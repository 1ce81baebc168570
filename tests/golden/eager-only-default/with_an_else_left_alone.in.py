# settings: site_lines=11
# An `else` decides something else under compilation: left alone.
import torch


def weighted_sum(values, weights=None):
    if weights is None and not torch.compiler.is_compiling():
        weights = torch.ones_like(values)
    else:
        weights = values.new_zeros(values.shape)
    return (values * weights).sum(dim=-1)
