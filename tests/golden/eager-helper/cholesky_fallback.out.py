# settings: site_lines=11 data_dependent_lines=11
import torch


@torch.compiler.disable
def psd_safe_cholesky(A, jitter=1e-6, max_tries=3):
    """A Cholesky factor that adds jitter to the diagonal when the factorization fails
    (linear_operator's `_psd_safe_cholesky`, which GPyTorch and BoTorch call for every
    posterior). The success test reads the factorization's status: data-dependent, and its
    branch returns early, which no tensor `where` or `cond` can express."""
    L, info = torch.linalg.cholesky_ex(A)
    if not torch.any(info):
        return L
    for i in range(max_tries):
        jittered = A + jitter * (10**i) * torch.eye(A.shape[-1], dtype=A.dtype)
        L, info = torch.linalg.cholesky_ex(jittered)
        if not torch.any(info):
            return L
    raise ValueError(f"the matrix is not positive definite, even with jitter {jitter * 10 ** (max_tries - 1)}")


def gp_posterior_mean(train_x, train_y, test_x, lengthscale):
    def kernel(a, b):
        return torch.exp(-0.5 * torch.cdist(a / lengthscale, b / lengthscale).pow(2))

    L = psd_safe_cholesky(kernel(train_x, train_x) + 0.01 * torch.eye(train_x.shape[0]))
    alpha = torch.cholesky_solve(train_y.unsqueeze(-1), L)
    return (kernel(test_x, train_x) @ alpha).squeeze(-1)


posterior_mean = torch.compile(gp_posterior_mean)
