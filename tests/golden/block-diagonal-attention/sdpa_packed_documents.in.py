# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F
from torch import nn


class PackedSelfAttention(nn.Module):
    """Documents packed into one row, attended one by one with SDPA (a plain PyTorch form)."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3)

    def forward(self, x, doc_lengths):
        q, k, v = self.to_qkv(x).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4).unbind(0)
        pieces = [t.split(doc_lengths.tolist(), 2) for t in [q, k, v]]
        outs = [F.scaled_dot_product_attention(a, b, c) for a, b, c in zip(*pieces)]
        out = torch.cat(outs, dim=2)
        return out.transpose(1, 2).flatten(2)


model = torch.compile(PackedSelfAttention())
