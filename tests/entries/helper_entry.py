import torch
from helpers import checked_scale, leaky


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        h = checked_scale(h, 0.5)
        return leaky(h).sum(-1)


def my_model_function():
    torch.manual_seed(0)
    return Head()


def GetInput():
    return (torch.randn(2, 4),)
