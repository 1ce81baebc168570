# settings: unsafe_fixes=true
import torch
from torch import nn


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
    if attention_mask is not None:
        attn_weights = attn_weights + attention_mask
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_weights = nn.functional.dropout(attn_weights, p=dropout, training=module.training)
    attn_output = torch.matmul(attn_weights, value)
    attn_output = attn_output.transpose(1, 2).contiguous()
    return attn_output, attn_weights


class VisionAttention(nn.Module):
    """The attention of Qwen2-VL's vision encoder (and its copies), on its non-flash path."""

    def __init__(self, dim=16, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scaling = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, cu_seqlens, **kwargs):
        seq_length = hidden_states.shape[0]
        query_states, key_states, value_states = (
            self.qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
        )
        query_states = query_states.transpose(0, 1).unsqueeze(0)
        key_states = key_states.transpose(0, 1).unsqueeze(0)
        value_states = value_states.transpose(0, 1).unsqueeze(0)
        attention_interface = eager_attention_forward

        # Other implementations: Process each chunk separately
        lengths = cu_seqlens[1:] - cu_seqlens[:-1]
        segment_ends = lengths.cumsum(0)
        segment = torch.searchsorted(
            segment_ends,
            torch.arange(query_states.shape[2], device=segment_ends.device, dtype=segment_ends.dtype),
            right=True,
        )
        segment_mask = torch.zeros(
            segment.shape[0],
            segment.shape[0],
            dtype=query_states.dtype,
            device=query_states.device,
        )
        segment_mask = segment_mask.masked_fill(
            segment[:, None] != segment[None, :],
            torch.finfo(query_states.dtype).min,
        )
        attn_output = attention_interface(
            self,
            query_states,
            key_states,
            value_states,
            attention_mask=segment_mask,
            scaling=self.scaling,
            dropout=0.0,
            is_causal=False,
            **kwargs,
        )[0]

        attn_output = attn_output.reshape(seq_length, -1).contiguous()
        return self.proj(attn_output)


model = torch.compile(VisionAttention())
