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
        segment_ends = doc_lengths.cumsum(0)
        segment = torch.searchsorted(
            segment_ends,
            torch.arange(q.shape[2], device=segment_ends.device, dtype=segment_ends.dtype),
            right=True,
        )
        segment_mask = torch.zeros(
            segment.shape[0],
            segment.shape[0],
            dtype=q.dtype,
            device=q.device,
        )
        segment_mask = segment_mask.masked_fill(
            segment[:, None] != segment[None, :],
            torch.finfo(q.dtype).min,
        )
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=segment_mask)
        return out.transpose(1, 2).flatten(2)


model = torch.compile(PackedSelfAttention())
