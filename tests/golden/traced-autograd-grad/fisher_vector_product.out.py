# settings: assume_compiled=true
# A trust-region policy update's Fisher-vector product (the form of skrl's TRPO): the KL's
# gradient with respect to the policy's parameters, taken twice, each time from
# `policy.parameters()`, a generator.
import torch


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


def fisher_vector_product(policy, states, vector, damping):
    kl = policy.kl_divergence(states).mean()
    kl_gradient = _autograd_grad(kl, list(policy.parameters()), create_graph=True)
    flat_kl_gradient = torch.cat([gradient.view(-1) for gradient in kl_gradient])
    hessian_vector_gradient = _autograd_grad((flat_kl_gradient * vector).sum(), list(policy.parameters()))
    flat_hessian_vector = torch.cat([gradient.contiguous().view(-1) for gradient in hessian_vector_gradient])
    return flat_hessian_vector + damping * vector
