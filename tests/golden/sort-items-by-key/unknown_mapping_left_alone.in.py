# settings: assume_compiled=true
import torch


def flatten(state):
    # `state` may be any mapping: its items may repeat a key, and then the values are compared.
    return [value for _, value in sorted(state.items())]
