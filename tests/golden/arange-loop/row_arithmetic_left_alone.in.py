# settings: assume_compiled=true
# Left alone: the row itself goes into a tensor's arithmetic (neighbouring cells' offsets), and
# one arange alone in cartesian_prod gives the arange itself, not rows.
import torch


def neighbour_offsets(dimension: int):
    offsets = []
    for index in torch.cartesian_prod(torch.arange(3), torch.arange(3)):
        offsets.append(index - 1)
    return offsets


def single(x, n: int):
    for i in torch.cartesian_prod(torch.arange(n)):
        x = x + i
    return x


def listed(w):
    g = torch.zeros_like(w)
    for idx in torch.cartesian_prod(torch.arange(w.shape[0]), torch.arange(w.shape[1])):
        idx = tuple(idx.tolist())
        g[idx] = w[idx] * 2
    return g


def pairs_read_twice(y, n: int):
    indices = torch.cartesian_prod(torch.arange(n), torch.arange(n))
    for index in indices:
        y[index[0], index[1]] = 1.0
    for index in indices:
        y[index[1], index[0]] += 1.0
    return y, indices.shape
