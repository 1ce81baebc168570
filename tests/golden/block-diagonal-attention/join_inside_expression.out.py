# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F


@torch.compile
def attend(q, k, v, doc_lengths):
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
    # joined and laid out in one line
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=segment_mask).transpose(1, 2).flatten(2)
    return out
