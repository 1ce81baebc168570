import torch


def fn(x):
    for i in range(5):
        x = x + 1
        if i == 3:
            torch._dynamo.graph_break()
    return x


def my_model_function():
    return fn


def GetInput():
    return torch.arange(4.0)
