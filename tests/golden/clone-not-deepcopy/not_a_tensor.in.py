# settings: unsafe_fixes=true assume_compiled=true
# A deep copy of a module, of a container, and one with a memo: none is known to be one tensor.
import copy

import torch


def snapshot(model: torch.nn.Module, tensors: list, memo: dict):
    frozen = copy.deepcopy(model)
    saved = copy.deepcopy(tensors)
    other = copy.deepcopy(tensors[0], memo)
    return frozen, saved, other
