# settings: assume_compiled=true
# The rewrite is unsafe: without --unsafe-fixes nothing changes.
import torch


def encode(input_values):
    hidden_states = input_values[:, None]
    hidden_states.requires_grad = True
    return hidden_states.sum()
