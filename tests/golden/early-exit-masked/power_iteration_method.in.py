# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=20
import torch
from torch import nn


class SpectralScale(nn.Module):
    """Divides by the weight's largest singular value, found by power iteration."""

    def __init__(self, dim=4):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim, dim))

    def forward(self, x, n_iter: int = 20, eps: float = 1e-6):
        v = torch.ones(self.weight.shape[1]) / self.weight.shape[1] ** 0.5
        sigma = torch.zeros(())
        for _ in range(n_iter):
            w = self.weight.T @ (self.weight @ v)
            v_next = w / w.norm()
            sigma_next = (self.weight @ v_next).norm()
            if (sigma_next - sigma).abs() < eps:
                break
            v, sigma = v_next, sigma_next
        return x @ self.weight / sigma
