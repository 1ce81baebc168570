# settings: unsafe_fixes=true site_lines=11
# With --unsafe-fixes the returned row, a view in the original, is read with a one-element index.
# (a copy: the caller must not write into it expecting the table to change)
import torch


@torch.compile
def nearest_row(table, query):
    scores = table @ query
    best = scores.argmax()
    return table[best[None]].squeeze(0)
