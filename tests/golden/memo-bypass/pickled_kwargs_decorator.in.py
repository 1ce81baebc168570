# settings: assume_compiled=true unsafe_fixes=true
# The form of GPyTorch's and linear_operator's `@cached`: the key pickles the keyword arguments
# and module helpers hold the cache.
import functools
import pickle

import torch


def _in_cache(obj, name, *args, kwargs_pkl):
    return (name, args, kwargs_pkl) in obj.__dict__.setdefault("_memoize_cache", {})


def _add_to_cache(obj, name, value, *args, kwargs_pkl):
    obj.__dict__.setdefault("_memoize_cache", {})[(name, args, kwargs_pkl)] = value
    return value


def _get_from_cache(obj, name, *args, kwargs_pkl):
    return obj._memoize_cache[(name, args, kwargs_pkl)]


def cached(method=None, name=None):
    if method is None:
        return functools.partial(cached, name=name)

    @functools.wraps(method)
    def g(self, *args, **kwargs):
        """Memoized on the arguments."""
        cache_name = name if name is not None else method
        kwargs_pkl = pickle.dumps(kwargs)
        if not _in_cache(self, cache_name, *args, kwargs_pkl=kwargs_pkl):
            return _add_to_cache(self, cache_name, method(self, *args, **kwargs), *args, kwargs_pkl=kwargs_pkl)
        return _get_from_cache(self, cache_name, *args, kwargs_pkl=kwargs_pkl)

    return g


class Covariance(torch.nn.Module):
    @cached(name="root")
    def root(self, x, jitter=1e-6):
        return torch.linalg.cholesky(x @ x.mT + jitter * torch.eye(x.shape[-1]))
