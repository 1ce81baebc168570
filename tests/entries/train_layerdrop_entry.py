"""A small model trained with dropout and LayerDrop, printing its loss: two breaks that only a
training step meets (the draw LayerDrop compares with its rate, inside the loop over layers) and
one it always meets (the print)."""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)
        self.dropout = nn.Dropout(0.1)

    def forward(self, h):
        return h + self.dropout(self.linear(h).relu())


class Model(nn.Module):
    def __init__(self, layerdrop=0.0):
        super().__init__()
        self.layers = nn.ModuleList([Block() for _ in range(3)])
        self.head = nn.Linear(8, 1)
        self.layerdrop = layerdrop

    def forward(self, x, y):
        h = x
        for layer in self.layers:
            if self.training:
                dropout_probability = torch.rand([])
                if dropout_probability < self.layerdrop:
                    continue
            h = layer(h)
        loss = ((self.head(h) - y) ** 2).mean()
        print(f"loss {loss.item():.4f}")
        return loss


def my_model_function():
    return Model()


def GetInput():
    return (torch.randn(4, 8), torch.randn(4, 1))
