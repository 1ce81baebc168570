# settings: assume_compiled=true unsafe_fixes=true
# GPyTorch's kernels: the flag `x1_eq_x2` and a symmetric shortcut behind `torch.equal`.
import torch


class RBFKernel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lengthscale = torch.nn.Parameter(torch.ones(1))

    def covar_dist(self, x1, x2, square_dist=False):
        x1_eq_x2 = torch.equal(x1, x2)
        res = torch.cdist(x1, x2).pow(2) if square_dist else torch.cdist(x1, x2)
        if x1_eq_x2 and not x1.requires_grad:
            res.diagonal(dim1=-2, dim2=-1).fill_(0)
        return res

    def forward(self, x1, x2):
        if torch.equal(x1, x2):
            x2 = x1
        return self.covar_dist(x1.div(self.lengthscale), x2.div(self.lengthscale), square_dist=True).div(-2).exp()
