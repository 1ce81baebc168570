"""A context manager whose entries show in the output: splitting it cannot verify."""
import torch


class Entries:
    count = 0

    def __enter__(self):
        Entries.count += 1
        return self

    def __exit__(self, *exc):
        return False


def fn(x):
    Entries.count = 0
    with Entries():
        x = x + 1
        torch._dynamo.graph_break()
        x = x * 2
    return x * Entries.count


def my_model_function():
    return fn


def GetInput():
    return torch.arange(4.0)
