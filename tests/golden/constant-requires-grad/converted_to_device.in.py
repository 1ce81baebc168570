# settings: unsafe_fixes=true
# call: regularized(torch.ones(3, 2), [torch.ones(2, 2), torch.full((2, 2), 2.0)])
import torch


@torch.compile
def regularized(features, weights):
    reg = torch.tensor(0.0, requires_grad=True).to(features.device)
    for weight in weights:
        reg = reg + torch.sum(weight ** 2)
    return features.sum() + 0.5 * reg
