# settings: unsafe_fixes=true
# call: run(torch.linspace(-1, 1, 96).reshape(2, 6, 8), torch.linspace(1, -1, 64).reshape(2, 4, 8))
import torch
import torch.nn.functional as F
from torch import nn


def like(t):
    return {"dtype": t.dtype, "device": t.device}


class MemoryAttention(nn.Module):
    """Attention over the input and a memory; while training, an auxiliary loss says how well a
    compressed memory reconstructs the attention over the full one (zero otherwise)."""

    def __init__(self, dim=8, ratio=2):
        super().__init__()
        self.to_qkv = nn.Linear(dim, 3 * dim)
        self.compress = nn.Conv1d(dim, dim, ratio, stride=ratio)

    def forward(self, x, memory):
        q, k, v = self.to_qkv(torch.cat((memory, x), dim=1)).chunk(3, dim=-1)
        out = (q @ k.transpose(1, 2)).softmax(dim=-1) @ v
        aux_loss = torch.zeros(1, requires_grad=True, **like(q))
        if not self.training:
            return out[:, memory.shape[1]:], aux_loss
        compressed = self.compress(memory.transpose(1, 2)).transpose(1, 2)
        full = (q @ memory.transpose(1, 2)).softmax(dim=-1) @ memory
        short = (q @ compressed.transpose(1, 2)).softmax(dim=-1) @ compressed
        aux_loss = F.mse_loss(full, short)
        return out[:, memory.shape[1]:], aux_loss


class MemoryTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = MemoryAttention()
        self.second = MemoryAttention()

    def forward(self, x, memory):
        aux_loss = torch.tensor(0.0, requires_grad=True, **like(x))
        x, first_aux_loss = self.first(x, memory)
        aux_loss = aux_loss + first_aux_loss
        x, second_aux_loss = self.second(x, memory)
        aux_loss = aux_loss + second_aux_loss
        return x, aux_loss / 2


def run(x, memory):
    torch.manual_seed(0)
    model = MemoryTransformer()
    return model(x, memory), model.eval()(x, memory)


model = torch.compile(MemoryTransformer())
