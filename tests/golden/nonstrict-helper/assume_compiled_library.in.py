# settings: assume_compiled=true
import torch


def _shape_of(x):
    torch._dynamo.graph_break()
    return x.reshape(x.shape[0], -1)


def flatten_features(x):
    return _shape_of(x).relu()
