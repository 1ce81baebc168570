# settings: unsafe_fixes=true
# Without a run that saw the break, the mask's shape against the tensor's is unknown: left alone.
import torch


@torch.compile
def masked_total(values, threshold):
    keep = values > threshold
    return values[keep].sum()
