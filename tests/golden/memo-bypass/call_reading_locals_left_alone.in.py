# settings: assume_compiled=true unsafe_fixes=true
# The wrapped call reads what the wrapper computes first, or a parameter it rebinds: it cannot be
# made the first statement.
import pickle

import torch


def cached(method):
    def wrapper(self, x):
        key = pickle.dumps(x.shape)
        scale = self.scales.get(key, 1.0)
        if key not in self.memo:
            self.memo[key] = method(self, x * scale)
        return self.memo[key]

    return wrapper


def cached_float(method):
    def wrapper(self, x):
        x = x.float()
        key = pickle.dumps(x.shape)
        if key not in self.memo:
            self.memo[key] = method(self, x)
        return self.memo[key]

    return wrapper
