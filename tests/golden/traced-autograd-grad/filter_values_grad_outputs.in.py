# settings: assume_compiled=true
# `filter(...)` over the parameters, a dict's `values()`, and the vectors of a vector-Jacobian
# product made by a generator expression (`grad_outputs`).
import torch


def trainable_gradient(model, loss):
    return torch.autograd.grad(loss, filter(lambda p: p.requires_grad, model.parameters()), allow_unused=True)


def named_gradient(model, loss):
    named = dict(model.named_parameters())
    return torch.autograd.grad(loss, named.values())


def vector_jacobian(outputs, inputs):
    return torch.autograd.grad(outputs, inputs, grad_outputs=(torch.ones_like(out) for out in outputs))
