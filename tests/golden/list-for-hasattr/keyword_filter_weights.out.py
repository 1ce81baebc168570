# settings: unsafe_fixes=true
# A converter that passes tensors through (`hasattr(values, "shape")`) and makes a tensor of
# anything else, given the positive scales by keyword (a loss-weighting helper's form).
import torch


def as_weights(values, dtype=torch.float32):
    if hasattr(values, "shape"):
        return values.to(dtype)
    return torch.tensor(list(values), dtype=dtype)


@torch.compile
def weighted(x):
    return x * as_weights(dtype=torch.float32, values=list(filter(lambda s: s > 0, [0.5, 0.0, 2.0]))).sum()
