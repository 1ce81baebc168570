# settings: assume_compiled=true unsafe_fixes=true
# A memoizing class whose key digests tensor arguments (the form of probabilistic-programming
# and data libraries' `memoize`): the key is made by a helper of the module.
import hashlib

import torch


def _fingerprint(value):
    if isinstance(value, torch.Tensor):
        return hashlib.md5(value.detach().cpu().numpy().tobytes()).hexdigest()
    return repr(value)


class memoize:
    def __init__(self, function):
        self.function = function
        self.results = {}

    def __call__(self, *args):
        key = tuple(_fingerprint(arg) for arg in args)
        if key in self.results:
            return self.results[key]
        value = self.function(*args)
        self.results[key] = value
        return value


@memoize
def basis(x, degree):
    return torch.stack([x**k for k in range(degree)], dim=-1)
