"""A speech model that marks tensors it made as requiring grad, for reentrant gradient
checkpointing: its feature encoder's input (Hugging Face's Wav2Vec2 family) and its attention's
zero position bias (the T5 family), both with checkpointing on. Dynamo does not trace setting
`requires_grad` (GB0206): in a training step, each frame that does it is skipped."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class FeatureEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_layers = nn.ModuleList([nn.Conv1d(1, 4, 3, stride=2), nn.Conv1d(4, 8, 3, stride=2)])
        self._requires_grad = True
        self.gradient_checkpointing = True

    def forward(self, input_values):
        hidden_states = input_values[:, None]

        # make sure hidden_states require grad for gradient_checkpointing
        if self._requires_grad and self.training:
            hidden_states.requires_grad = True

        for conv_layer in self.conv_layers:
            if self.gradient_checkpointing and self.training:
                hidden_states = checkpoint(conv_layer, hidden_states, use_reentrant=True)
            else:
                hidden_states = conv_layer(hidden_states)
            hidden_states = torch.nn.functional.gelu(hidden_states)
        return hidden_states.transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.gradient_checkpointing = True

    def forward(self, hidden_states):
        batch, length, dim = hidden_states.shape
        q, k, v = self.qkv(hidden_states).view(batch, length, 3, self.n_heads, dim // self.n_heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k)
        position_bias = torch.zeros((1, self.n_heads, length, length), dtype=scores.dtype, device=scores.device)
        if self.gradient_checkpointing and self.training:
            position_bias.requires_grad_(True)
        weights = (scores + position_bias).softmax(-1)
        return torch.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, length, dim)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_encoder = FeatureEncoder()
        self.attention = Attention(8, 2)

    def forward(self, input_values):
        features = self.feature_encoder(input_values)
        return self.attention(features).mean(dim=1)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(2, 32)
