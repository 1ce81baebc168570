# settings: unsafe_fixes=true assume_compiled=true
# call: sinkhorn(torch.full((3,), 1 / 3), torch.full((4,), 1 / 4), torch.arange(12.0).view(3, 4) / 12); sinkhorn(torch.full((2,), 0.5), torch.full((2,), 0.5), torch.eye(2), max_iter=3)
import torch


def sinkhorn(a, b, cost, eps=0.1, max_iter=50, tol=1e-6):
    # Entropic optimal transport: scale the kernel's rows and columns until the marginals hold.
    K = torch.exp(-cost / eps)
    u = torch.ones_like(a)
    v = torch.ones_like(b)
    stopped = torch.zeros((), dtype=torch.bool, device=u.device)
    for _ in range(max_iter):
        u_prev = u
        u = torch.where(stopped, u, a / (K @ v))
        v = torch.where(stopped, v, b / (K.T @ u))
        # Stop once the scaling no longer moves.
        stopped = stopped | (torch.max(torch.abs(u - u_prev)) < tol)
    return u[:, None] * K * v[None, :]
