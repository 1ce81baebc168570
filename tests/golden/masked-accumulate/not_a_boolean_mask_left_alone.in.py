# settings: assume_compiled=true site_lines=20
# Left alone: an index that may be an integer tensor with repeats (adding through index_put_ with
# accumulate would add more than once where the original added once), a product through a mask
# (no accumulating form), a target that is itself a subscript, and a slice.
import torch


def count(counts, idx, x, mask, buffers, i):
    counts[idx] += 1
    x[mask] *= 2
    x[x < 0] /= 2
    buffers[i][x > 0] += 1
    x[1:] += 1
    return counts, x


def scatter_counts(counts, idx, weights):
    # A run saw this line break (a number read from the weights), but nothing says the index is a
    # mask: an integer index with repeats adds once here, so it is left alone.
    counts[idx] += weights.sum().item()
    return counts
