# settings: assume_compiled=true
# A trust-region policy update's Fisher-vector product (the form of skrl's TRPO): the KL's
# gradient with respect to the policy's parameters, taken twice, each time from
# `policy.parameters()`, a generator.
import torch


def fisher_vector_product(policy, states, vector, damping):
    kl = policy.kl_divergence(states).mean()
    kl_gradient = torch.autograd.grad(kl, policy.parameters(), create_graph=True)
    flat_kl_gradient = torch.cat([gradient.view(-1) for gradient in kl_gradient])
    hessian_vector_gradient = torch.autograd.grad((flat_kl_gradient * vector).sum(), policy.parameters())
    flat_hessian_vector = torch.cat([gradient.contiguous().view(-1) for gradient in hessian_vector_gradient])
    return flat_hessian_vector + damping * vector
