"""A GP posterior mean through a Cholesky factor with a jitter fallback that warns
(linear_operator's `psd_safe_cholesky`, which GPyTorch and BoTorch call for every posterior).
Its success test reads the factorization's status (data-dependent branching, GB0170); the
fallback, and its warning, never run on these inputs."""

import warnings

import torch
from torch import nn


def psd_safe_cholesky(A, jitter=1e-6, max_tries=3):
    L, info = torch.linalg.cholesky_ex(A)
    if not torch.any(info):
        return L
    for i in range(max_tries):
        jitter_new = jitter * (10**i)
        L, info = torch.linalg.cholesky_ex(A + jitter_new * torch.eye(A.shape[-1], dtype=A.dtype, device=A.device))
        if not torch.any(info):
            warnings.warn(f"A not p.d., added jitter of {jitter_new:.1e} to the diagonal")
            return L
    raise ValueError("the matrix is not positive definite, even with jitter")


class PosteriorMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw_lengthscale = nn.Parameter(torch.tensor(0.3))

    def kernel(self, a, b):
        lengthscale = nn.functional.softplus(self.raw_lengthscale)
        return torch.exp(-0.5 * torch.cdist(a / lengthscale, b / lengthscale).pow(2))

    def forward(self, train_x, train_y, test_x):
        noise = 0.01 * torch.eye(train_x.shape[0], dtype=train_x.dtype, device=train_x.device)
        L = psd_safe_cholesky(self.kernel(train_x, train_x) + noise)
        alpha = torch.cholesky_solve(train_y.unsqueeze(-1), L)
        return (self.kernel(test_x, train_x) @ alpha).squeeze(-1)


def my_model_function():
    return torch.compile(PosteriorMean())


def GetInput():
    torch.manual_seed(0)
    return torch.randn(6, 2), torch.randn(6), torch.randn(3, 2)
