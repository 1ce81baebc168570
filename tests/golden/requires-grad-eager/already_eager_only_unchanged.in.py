# settings: unsafe_fixes=true assume_compiled=true
# A second run: the flag is already set in eager runs only.
import torch


def encode(input_values):
    hidden_states = input_values[:, None]
    if not torch.compiler.is_compiling():
        hidden_states.requires_grad = True
    return hidden_states.sum()
