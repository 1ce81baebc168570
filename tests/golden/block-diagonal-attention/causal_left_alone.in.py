# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F


@torch.compile
def attend(q, k, v, lengths):
    # Causal within each segment: a block-diagonal mask alone would not say so.
    splits = [torch.split(t, lengths.tolist(), dim=2) for t in (q, k, v)]
    outs = [F.scaled_dot_product_attention(a, b, c, is_causal=True) for a, b, c in zip(*splits)]
    out = torch.cat(outs, dim=2)
    return out
