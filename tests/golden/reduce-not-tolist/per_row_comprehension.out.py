# settings: unsafe_fixes=true site_lines=9
# A comprehension sums each row's values through a list (a running-loss tally in a training step's
# loss, the row losses stacked back into a tensor).
import torch


@torch.compile
def row_totals(losses: torch.Tensor) -> torch.Tensor:
    return torch.stack([torch.as_tensor(row.detach().sum()) for row in losses])
