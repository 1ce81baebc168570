# settings: unsafe_fixes=true site_lines=10
# A subscript written to is left alone: `counts[index] += 1` writes through the 0-dim index,
# and a one-element index would write through a copy's view in other code.
import torch


@torch.compile
def histogram_step(counts, knots, t):
    index = torch.bucketize(t, knots)
    counts[index] += 1
    return counts
