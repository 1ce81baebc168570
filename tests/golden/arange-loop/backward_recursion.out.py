# settings: assume_compiled=true
# A Hawkes process's recursion, run backwards over the event index (`step` by keyword), each
# step reading the next one's value; forwards over an arange moved to a device (a float arange
# is left alone).
import torch


def backward_terms(A, rho, lambda_, mu, m: int):
    B = torch.zeros(mu.shape[:-1] + (m,), dtype=mu.dtype)
    p = torch.ones(mu.shape[:-1] + (m + 1,), dtype=mu.dtype)
    for i in range(m - 1, -1, -1):
        B[..., i] += (1.0 - 2.0 * (1.0 - rho[..., i]) * p[..., i + 1].clone()) * lambda_[..., i] + mu[..., i]
        p[..., i] = p[..., i + 1] * A[..., i]
    return B, p


def forward_terms(A, p, device):
    for i in range(A.shape[-1]):
        p[..., i + 1] = p[..., i] * A[..., i]
    for i in torch.arange(A.shape[-1]).float():
        p[..., int(i)] = p[..., int(i)] * 2
    return p
