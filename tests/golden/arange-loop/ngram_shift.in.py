# settings: assume_compiled=true
# A text CNN's n-gram features: the input shifted by each offset, the offset a slice bound.
import torch
from torch import nn


class NGramShift(nn.Module):
    def __init__(self, ngram):
        super().__init__()
        self.ngram = ngram

    def forward(self, x):
        shifted = []
        size = x.size()  # (b, l, c)
        for i in torch.arange(self.ngram):
            shifted_x = torch.zeros((size[0], size[1] + self.ngram, size[2]), device=x.device)
            shifted_x[:, i:i - self.ngram, :] = x
            shifted.append(shifted_x)
        return torch.cat(shifted, dim=-1)
