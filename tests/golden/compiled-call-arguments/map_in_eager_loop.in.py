# settings: unsafe_fixes=true
# A script's evaluation loop hands the compiled step a `map` over a batch, written in the call,
# and a keyword argument made by `enumerate`.
import torch


@torch.compile
def score(features, weights=None):
    total = torch.zeros(())
    for feature in features:
        total = total + feature.sum()
    return total


batches = [[torch.ones(2), -torch.ones(2)], [torch.arange(3.0)]]
scores = []
for batch in batches:
    scores.append(score(map(torch.relu, batch), weights=enumerate(batch)))
