# settings: unsafe_fixes=true
import torch
from torch import nn


class VisionAttention(nn.Module):
    """RADIO's form: the per-segment outputs are read again for their attention weights."""

    def __init__(self, attention_interface):
        super().__init__()
        self.attention_interface = attention_interface

    def forward(self, query_states, key_states, value_states, cu_seqlens):
        lengths = cu_seqlens[1:] - cu_seqlens[:-1]
        splits = [torch.split(tensor, lengths.tolist(), dim=2) for tensor in (query_states, key_states, value_states)]
        outputs = [
            self.attention_interface(self, query, key, value, attention_mask=None)
            for query, key, value in zip(*splits)
        ]
        attn_output = torch.cat([output[0] for output in outputs], dim=1)
        return attn_output, [output[1] for output in outputs]


model = torch.compile(VisionAttention(None))
