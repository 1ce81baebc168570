import torch


def fn(x):
    try:
        x = x + 1
        torch._dynamo.graph_break()
        return x + 1
    except Exception as e:
        pass


def my_model_function():
    return fn


def GetInput():
    return torch.arange(4.0)
