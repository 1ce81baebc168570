# settings: site_lines=11
# The indexed row is returned itself, not used in arithmetic: the original returned a view of
# the table, the rewrite a copy, so the change needs --unsafe-fixes.
import torch


@torch.compile
def nearest_row(table, query):
    scores = table @ query
    best = scores.argmax()
    return table[best]
