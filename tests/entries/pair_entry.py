"""Two modules with breaks: Net's rewrite verifies, counting_context's cannot."""
import torch
from counting_context import fn as counted
from model_module import Net


class Pair(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def forward(self, x):
        return self.net(x), counted(x)


def my_model_function():
    torch.manual_seed(0)
    return Pair()


def GetInput():
    return torch.randn(2, 4)
