# settings: site_lines=9
# Any library's form, with torch's own check and the default used in a return.
import torch


def weighted_sum(values, weights=None):
    if weights is None and not torch.compiler.is_compiling():
        weights = torch.ones_like(values)
    return (values * weights).sum(dim=-1)
