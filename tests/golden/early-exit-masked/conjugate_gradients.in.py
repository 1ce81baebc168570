# settings: unsafe_fixes=true assume_compiled=true data_dependent_lines=17
# call: conjugate_gradients(torch.eye(4) * 3 + 0.5, torch.arange(4.0)); conjugate_gradients(torch.eye(4) * 3 + 0.5, torch.arange(4.0), nsteps=2); conjugate_gradients(torch.eye(3), torch.ones(3))
import torch


def conjugate_gradients(A, b, nsteps=10, residual_tol=1e-10):
    # TRPO / natural policy gradient's solve of A x = b (tianshou's NPG).
    x = torch.zeros_like(b)
    r, p = b.clone(), b.clone()
    rdotr = r.dot(r)
    for _ in range(nsteps):
        z = A @ p
        alpha = rdotr / p.dot(z)
        x += alpha * p
        r -= alpha * z
        new_rdotr = r.dot(r)
        if new_rdotr < residual_tol:
            break
        p = r + new_rdotr / rdotr * p
        rdotr = new_rdotr
    return x
