# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=14
# call: top_singular_value(torch.eye(3) * 2); top_singular_value(torch.arange(6.0).view(2, 3))
import torch


def top_singular_value(w, n_iter=30, eps=1e-5):
    # `_` is bound here too, and read by no one: the loop's `_` is still a throwaway.
    _, d = w.shape
    v = torch.ones(d) / d**0.5
    sigma = torch.zeros(())
    stopped = torch.zeros((), dtype=torch.bool, device=sigma.device)
    for _ in range(n_iter):
        v_next = w.T @ (w @ v)
        v_next = v_next / v_next.norm()
        stopped = stopped | (((w @ v_next).norm() - sigma).abs() < eps)
        v, sigma = torch.where(stopped, v, v_next), torch.where(stopped, sigma, (w @ v_next).norm())
    return sigma
