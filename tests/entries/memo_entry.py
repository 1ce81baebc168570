"""A model whose forward calls two memoized functions: a method behind a `@cached` decorator that
pickles its keyword arguments into the key (GPyTorch's form) and a function behind a memoizing
class that digests its tensor argument (hashlib). Each call breaks the compiled forward (GB0007)."""

import functools
import hashlib
import pickle

import torch
from torch import nn


def cached(method):
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        key = (method.__name__, args, pickle.dumps(kwargs))
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            memo[key] = method(self, *args, **kwargs)
        return memo[key]

    return wrapper


def _digest(value):
    return hashlib.sha1(value.detach().numpy().tobytes()).hexdigest()


class memoize:
    def __init__(self, function):
        self.function = function
        self.results = {}

    def __call__(self, x):
        key = _digest(x)
        if key not in self.results:
            self.results[key] = self.function(x)
        return self.results[key]


@memoize
def features(x):
    return torch.cat([x, x.pow(2)], dim=-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 8)
        self.head = nn.Linear(8, 2)

    @cached
    def prior(self, n, scale=1.0):
        return torch.linspace(0.0, 1.0, n) * scale

    def forward(self, x):
        h = self.encoder(features(x)).tanh()
        h = h + self.prior(8, scale=0.5)
        return self.head(h)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
