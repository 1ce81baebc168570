# Random token ids for masked positions, in a compiled module's forward: the upper bound only
# (`random_(high)`), into a fresh `torch.empty`, torch imported under another name.
import torch as th
from torch import nn


class Masker(nn.Module):
    def __init__(self, vocab_size: int):
        super().__init__()
        self.vocab_size = vocab_size

    def forward(self, input_ids, mask):
        replacement = th.empty(input_ids.shape, dtype=input_ids.dtype)
        replacement = th.randint_like(replacement, self.vocab_size)
        return th.where(mask, replacement, input_ids)


model = th.compile(Masker(100))
