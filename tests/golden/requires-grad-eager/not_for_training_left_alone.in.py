# settings: unsafe_fixes=true assume_compiled=true
# A flag that is not set for training is the point of the code (a tensor handed back to be
# differentiated, as torch's own tracing utilities do): left alone.
import torch


def prepare(example):
    result = example.detach().clone()
    result.requires_grad_(True)
    return result
