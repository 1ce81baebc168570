"""A whole training step compiled by the program itself: forward, loss, backward and an
optimizer step, the optimizer built on the first step."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 1))

    def forward(self, x):
        return self.net(x)


def my_model_function():
    return Model()


def GetInput():
    return (torch.randn(4, 8), torch.randn(4, 1))


@torch.compile
def train_step(model, batch):
    x, y = batch
    if not hasattr(model, "optimizer"):
        model.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    model.optimizer.step()
    return loss
