import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

    def forward(self, x, n: int):
        for layer in self.layers:
            x = layer(x)
            print(x.shape)
        for i in range(n):
            torch._dynamo.graph_break()
        return x


model = torch.compile(Model())
