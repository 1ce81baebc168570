# settings: unsafe_fixes=true
import torch


@torch.compile
def with_bias(x):
    bias = torch.zeros(x.shape[-1], requires_grad=x.requires_grad)
    return x + bias
