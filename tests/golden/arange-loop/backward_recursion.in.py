# settings: assume_compiled=true
# A Hawkes process's recursion, run backwards over the event index (`step` by keyword), each
# step reading the next one's value.
import torch


def backward_terms(A, rho, lambda_, mu, m: int):
    B = torch.zeros(mu.shape[:-1] + (m,), dtype=mu.dtype)
    p = torch.ones(mu.shape[:-1] + (m + 1,), dtype=mu.dtype)
    for i in torch.arange(m - 1, -1, step=-1):
        B[..., i] += (1.0 - 2.0 * (1.0 - rho[..., i]) * p[..., i + 1].clone()) * lambda_[..., i] + mu[..., i]
        p[..., i] = p[..., i + 1] * A[..., i]
    return B, p
