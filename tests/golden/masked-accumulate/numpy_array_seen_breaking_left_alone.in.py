# settings: site_lines=15,16
# A run saw these lines break (Dynamo traces NumPy arrays as it traces tensors, and their masked
# updates break the same way), but the arrays are NumPy's, which have no `index_put_`: a spec
# augmentation's NumPy mask and a tensor's values read out as an array are left as they are.
import numpy as np
import torch


def mask_frames(features: torch.Tensor, mask_prob: float):
    lengths = features.sum(-1).cpu().numpy()
    spans = np.random.rand(*lengths.shape) < mask_prob
    counts = np.zeros(lengths.shape, dtype=np.int64)
    scores = lengths.astype(np.float32)
    if spans.any():
        counts[spans] += 1
        scores[scores > 0] -= 0.5
    return counts, scores
