import torch
from model_module import Net


def my_model_function():
    torch.manual_seed(0)
    return Net()


def GetInput():
    return (torch.randn(2, 4),)
