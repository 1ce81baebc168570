# settings: unsafe_fixes=true assume_compiled=true
# call: conjugate_gradient(lambda v: (torch.eye(3) * 2 + 0.1) @ v, torch.ones(3)); conjugate_gradient(lambda v: v * 4, torch.arange(3.0), num_iterations=1)
import torch


def conjugate_gradient(fisher_vector_product, b, num_iterations=10, residual_tolerance=1e-10):
    # Without a run: `torch.dot` says the residual is a tensor, so the test decides on one.
    x = torch.zeros_like(b)
    r = b.clone()
    p = b.clone()
    rr_old = torch.dot(r, r)
    stopped = torch.zeros((), dtype=torch.bool, device=rr_old.device)
    for _ in range(num_iterations):
        hv = fisher_vector_product(p)
        alpha = rr_old / torch.dot(p, hv)
        x += torch.where(stopped, 0, alpha * p)
        r -= torch.where(stopped, 0, alpha * hv)
        rr_new = torch.dot(r, r)
        stopped = stopped | (rr_new < residual_tolerance)
        p = torch.where(stopped, p, r + rr_new / rr_old * p)
        rr_old = torch.where(stopped, rr_old, rr_new)
    return x
