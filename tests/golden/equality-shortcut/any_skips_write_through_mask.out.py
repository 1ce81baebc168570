# settings: unsafe_fixes=true assume_compiled=true
# call: contrastive_logits(torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 1.0]])); contrastive_logits(torch.tensor([[1.0, 2.0], [3.0, 2.0], [0.0, 1.0]]))
# A test that the mask selects anything, around a write of a number through it: wav2vec2's
# contrastive logits, where a negative sample equals the positive one.
import torch


def contrastive_logits(logits: torch.Tensor) -> torch.Tensor:
    neg_is_pos = (logits[1:] == logits[0]).all(-1)
    if torch.compiler.is_compiling() or neg_is_pos.any():
        logits[1:][neg_is_pos] = float("-inf")
    return logits
