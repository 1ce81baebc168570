"""Loops that stop early on a tensor's test: a Sinkhorn transport loss between two embedded point
sets (entropic optimal transport, scaled until the marginals stop moving), and a natural policy
gradient's conjugate-gradient solve of the Fisher system (TRPO, tianshou's NPG). Dynamo cannot
decide either test (GB0170), and a break in a loop makes it skip the whole function."""

import torch
from torch import nn


def sinkhorn_plan(cost, eps=0.5, max_iter=30, tol=1e-4):
    a = torch.full(cost.shape[:1], 1.0 / cost.shape[0])
    b = torch.full(cost.shape[1:], 1.0 / cost.shape[1])
    K = torch.exp(-cost / eps)
    u = torch.ones_like(a)
    v = torch.ones_like(b)
    for _ in range(max_iter):
        u_prev = u
        u = a / (K @ v)
        v = b / (K.T @ u)
        if (u - u_prev).abs().max() < tol:
            break
    return u[:, None] * K * v[None, :]


def conjugate_gradients(fvp, b, nsteps=10, residual_tol=1e-10):
    x = torch.zeros_like(b)
    r, p = b.clone(), b.clone()
    rdotr = r.dot(r)
    for _ in range(nsteps):
        z = fvp(p)
        alpha = rdotr / p.dot(z)
        x += alpha * p
        r -= alpha * z
        new_rdotr = r.dot(r)
        if new_rdotr < residual_tol:
            break
        p = r + new_rdotr / rdotr * p
        rdotr = new_rdotr
    return x


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, 4)
        self.fisher = nn.Parameter(torch.eye(5) * 2 + 0.3)

    def forward(self, x, y, g):
        cost = torch.cdist(self.embed(x), self.embed(y)) ** 2
        plan = sinkhorn_plan(cost)
        step = conjugate_gradients(lambda v: self.fisher.detach() @ v, g)
        return (plan * cost).sum() + step.square().sum()


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(6, 3), torch.randn(5, 3), torch.randn(5)
