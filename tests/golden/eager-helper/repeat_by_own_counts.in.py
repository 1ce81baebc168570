# settings: site_lines=9 called_lines=9
# `torch.repeat_interleave(counts)` repeats each index by the count held there: its length is the
# sum of the counts, decided by data (torchani's central atom of each triple of a neighbour list).
import torch


def pair_owner(counts: torch.Tensor) -> torch.Tensor:
    pair_sizes = (counts * (counts - 1)).div(2, rounding_mode="floor")
    return torch.repeat_interleave(pair_sizes)


@torch.compile
def triple_energies(counts, energies):
    owners = pair_owner(counts)
    return energies.index_select(0, owners).sum()
