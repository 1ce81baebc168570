# settings: unsafe_fixes=true
# Left alone: a conversion that names no dtype (Dynamo traces it), a module's own parameter, and a
# value converted from another tensor.
import torch


@torch.compile
def step(x, y, layer, device):
    x.data = x.data.to(device)
    layer.weight.data = layer.weight.data.half()
    x.data = y.to(torch.float16)
    return x
