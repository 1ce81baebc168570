# settings: site_lines=11,13,15
# A boolean mask, a loop variable and a parameter are not integer index tensors: a run saw these
# lines break (the mask's data-dependent shape), and none is rewritten.
import torch


@torch.compile
def pick(values, threshold, position):
    mask = values > threshold
    total = torch.zeros(())
    total = total + values[mask].sum()
    for row in range(values.shape[0]):
        total = total + values[row].sum()
    best = values.argmax()
    return total + values[position] * values[best, 0]
