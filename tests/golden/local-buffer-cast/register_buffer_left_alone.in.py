# settings: unsafe_fixes=true
import torch
from torch import nn


def positional_encoding(position, d_model):
    angles = torch.arange(position)[:, None] / 10000 ** (torch.arange(d_model)[None] / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1)


class Embeddings(nn.Module):
    def __init__(self, vocab=10, d_model=4, positions=8):
        super().__init__()
        self.w = nn.Embedding(vocab, 2 * d_model)
        self.register_buffer("pos_encoding", positional_encoding(positions, d_model), persistent=False)

    def forward(self, input_ids):
        position_ids = torch.arange(input_ids.shape[-1])[None]
        inputs_embeds = self.w(input_ids)
        # `self.pos_encoding` is not moved with the model: convert it here.
        self.pos_encoding = self.pos_encoding.to(device=inputs_embeds.device, dtype=inputs_embeds.dtype)
        pos_embeds = self.pos_encoding[position_ids, :]
        return inputs_embeds + pos_embeds * self.pos_encoding.mean()


def run(input_ids):
    torch.manual_seed(0)
    return Embeddings()(input_ids)


model = torch.compile(Embeddings())
