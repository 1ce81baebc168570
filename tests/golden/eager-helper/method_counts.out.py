# settings: site_lines=13 called_lines=13
import torch
from torch import nn


class PackedEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.segment = nn.Embedding(16, dim)

    @torch.compiler.disable
    def segment_ids(self, lengths):
        """The segment of each token of sequences packed in one row."""
        return torch.repeat_interleave(torch.arange(lengths.numel()), lengths)

    def forward(self, x, lengths):
        return x + self.segment(self.segment_ids(lengths))
