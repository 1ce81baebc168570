# settings: unsafe_fixes=true assume_compiled=true
# The selected rows are read after the block, and the mask counts them: not rewritten.
import torch
import torch.nn.functional as F


def gather_read_after(x: torch.Tensor, labels: torch.Tensor, net) -> torch.Tensor:
    out = torch.zeros_like(x)
    mask = labels > 0
    if mask.any():
        rows = x[mask]
        out[mask] = net(rows)
    return out + rows.sum()


def grid_sample_counted(image_4d: torch.Tensor, grids: torch.Tensor, output: torch.Tensor) -> torch.Tensor:
    mask = grids[:, 0, 0, 0] > 0
    if mask.any():
        output[mask] = F.grid_sample(image_4d.expand(mask.sum(), -1, -1, -1), grids[mask])
    return output


def index_used_after(x: torch.Tensor, species: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    idx = (species == 1).nonzero().view(-1)
    if idx.shape[0] > 0:
        out.index_add_(0, idx, x.index_select(0, idx) * 2)
    return out[idx]


def with_else_left_alone(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    mask = x > 0
    if mask.any():
        out[mask] = x[mask] * 2
    else:
        out = out + 1
    return out


def index_summed_left_alone(x: torch.Tensor, species: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    # The sum of the positions is 0 for the one position 0: not a test of selecting anything.
    idx = (species == 1).nonzero().view(-1)
    if idx.sum() > 0:
        out.index_add_(0, idx, x.index_select(0, idx) * 2)
    return out
