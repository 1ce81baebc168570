"""A model whose forward picks shortcuts by comparing tensor values: a kernel that keeps a
`torch.equal` flag and zeroes its diagonal when both inputs are the same (GPyTorch's form), and
an attention mask of all ones dropped before attention (Hugging Face's form). Each test breaks
the compiled forward (GB0033, GB0170)."""

import torch
from torch import nn


class Kernel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lengthscale = nn.Parameter(torch.tensor(1.5))

    def forward(self, x1, x2):
        x1_eq_x2 = torch.equal(x1, x2)
        dist = torch.cdist(x1 / self.lengthscale, x2 / self.lengthscale)
        if x1_eq_x2:
            dist = dist - torch.diag_embed(dist.diagonal(dim1=-2, dim2=-1))
        return torch.exp(-0.5 * dist.pow(2))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.kernel = Kernel()

    def forward(self, x, attention_mask):
        if attention_mask is not None and torch.all(attention_mask == 1):
            attention_mask = None
        h = self.proj(x)
        scores = self.kernel(h, h)
        if attention_mask is not None:
            scores = scores.masked_fill(attention_mask[:, None, :] == 0, 0.0)
        return scores @ h


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return (torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.long))
