# settings: unsafe_fixes=true
import torch
import torch.nn.functional as F


@torch.compile
def attend(q, k, v, doc_lengths):
    splits = [torch.split(t, doc_lengths.tolist(), dim=2) for t in (q, k, v)]
    outs = [F.scaled_dot_product_attention(a, b, c) for a, b, c in zip(*splits)]
    # joined and laid out in one line
    out = torch.cat(outs, dim=2).transpose(1, 2).flatten(2)
    return out
