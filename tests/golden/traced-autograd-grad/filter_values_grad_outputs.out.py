# settings: assume_compiled=true
# `filter(...)` over the parameters, a dict's `values()`, and the vectors of a vector-Jacobian
# product made by a generator expression (`grad_outputs`).
import torch


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


def trainable_gradient(model, loss):
    return torch.autograd.grad(loss, list(filter(lambda p: p.requires_grad, model.parameters())), allow_unused=True)


def named_gradient(model, loss):
    named = dict(model.named_parameters())
    return _autograd_grad(loss, list(named.values()))


def vector_jacobian(outputs, inputs):
    return _autograd_grad(outputs, inputs, grad_outputs=[torch.ones_like(out) for out in outputs])
