# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F
from torch import nn


class GlmVisionAttention(nn.Module):
    """GLM-4V's form: the per-segment path is the `else` of a branch on the attention backend."""

    def __init__(self, dim=16, num_heads=2, use_varlen_kernel=False):
        super().__init__()
        self.num_heads = num_heads
        self.use_varlen_kernel = use_varlen_kernel
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, hidden_states, cu_seqlens):
        seq_length = hidden_states.shape[0]
        q, k, v = self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        q, k, v = (t.transpose(0, 1).unsqueeze(0) for t in (q, k, v))
        if self.use_varlen_kernel:
            raise NotImplementedError("a varlen kernel takes cu_seqlens itself")
        else:
            lengths = cu_seqlens[1:] - cu_seqlens[:-1]
            segment_ends = lengths.cumsum(0)
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
            attn_output = F.scaled_dot_product_attention(
                q,
                k,
                v,
                dropout_p=0.0,
                attn_mask=segment_mask,
            )
        return attn_output.transpose(1, 2).reshape(seq_length, -1)


model = torch.compile(GlmVisionAttention())
