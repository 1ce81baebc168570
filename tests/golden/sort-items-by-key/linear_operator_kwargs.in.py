# settings: assume_compiled=true
# call: run()
from collections import OrderedDict

import torch


class Operator:
    def __init__(self, *args, **kwargs):
        self._args = args
        self._differentiable_kwargs = OrderedDict()
        self._nondifferentiable_kwargs = dict()
        for name, val in sorted(kwargs.items()):
            # Sorting is necessary so that the flattening in the representation tree is deterministic
            if torch.is_tensor(val):
                self._differentiable_kwargs[name] = val
            else:
                self._nondifferentiable_kwargs[name] = val


def run():
    op = Operator(torch.ones(2), scale=torch.full((2,), 2.0), jitter=1e-4, bias=torch.zeros(2))
    # The tensors in the order of their names: bias, then scale.
    return torch.stack(list(op._differentiable_kwargs.values())), list(op._nondifferentiable_kwargs.values())
