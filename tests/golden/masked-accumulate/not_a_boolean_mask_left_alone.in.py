# settings: assume_compiled=true
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
