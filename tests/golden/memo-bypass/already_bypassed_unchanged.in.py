# settings: assume_compiled=true unsafe_fixes=true
# A wrapper this rule (or its author) already made call through while compiling.
import pickle

import torch


def cached(method):
    def wrapper(self, *args):
        if torch.compiler.is_compiling():
            return method(self, *args)
        key = pickle.dumps(args)
        if key not in self.memo:
            self.memo[key] = method(self, *args)
        return self.memo[key]
    return wrapper
