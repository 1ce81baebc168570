import torch
from torch import nn


class FullAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.query = nn.Linear(hidden_size, hidden_size)

    def forward(self, hidden_states):
        return torch.softmax(self.query(hidden_states) @ hidden_states.transpose(-1, -2), -1) @ hidden_states


class SparseAttention(FullAttention):
    pass


class Attention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.attention_type = "block_sparse"
        self.self = SparseAttention(hidden_size)

    def set_attention_type(self, value):
        if value == self.attention_type:
            return
        self.attention_type = value
        self.scale = nn.Parameter(torch.ones(self.hidden_size))

    def forward(self, hidden_states):
        return self.self(hidden_states) * getattr(self, "scale", 1.0)


class Encoder(nn.Module):
    """BigBird's swap: inputs too short for block sparse attention get full attention."""

    def __init__(self, hidden_size=8, num_layers=2, max_tokens=16):
        super().__init__()
        self.attention_type = "block_sparse"
        self.max_tokens = max_tokens
        self.layers = nn.ModuleList([Attention(hidden_size) for _ in range(num_layers)])

    @torch.compiler.disable
    def set_attention_type(self, value):
        if value == self.attention_type:
            return
        self.attention_type = value
        for layer in self.layers:
            layer.set_attention_type(value)

    def forward(self, hidden_states):
        if self.attention_type == "block_sparse" and hidden_states.shape[1] <= self.max_tokens:
            self.set_attention_type("original_full")
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states)
        return hidden_states


model = torch.compile(Encoder())
