"""A model that compiles itself with `fullgraph=True` and cannot: a special-token embedding
applied only `if is_special.any():` (tab-transformer's form; GB0170 on the test), and range
checks on every output in a loop, `assert t.min() >= lo` then `assert t.max() <= hi` (piq's
form; Dynamo skips the frame at the first assert, so no run sees the second). The compile fails
outright before any fix."""

import torch
from torch import nn


class Embed(nn.Module):
    """Categorical ids; negative ids are special tokens with their own embedding."""

    def __init__(self):
        super().__init__()
        self.categorical = nn.Embedding(10, 8)
        self.special = nn.Embedding(2, 8)

    @torch.compile(fullgraph=True)
    def forward(self, ids):
        is_special = ids < 0
        x = self.categorical(ids.clamp_min(0))
        if is_special.any():
            special_ids = (ids + 1).abs().clamp_max(1)
            x = torch.where(is_special[..., None], self.special(special_ids), x)
        for t in (x,):
            assert t.min() >= -10.0, f"too small: {t.min()}"
            assert t.max() <= 10.0, f"too large: {t.max()}"
        return x.sum(-1)


def my_model_function():
    torch.manual_seed(0)
    return Embed()


def GetInput():
    return torch.tensor([[1, -1, 3], [0, 4, -2]])
