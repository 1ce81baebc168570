import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        print(f"hidden norm: {h.norm().item():.3f}")
        return h.relu()


model = torch.compile(Model())
