# settings: assume_compiled=true
# A meta-learning inner step: the gradient taken only for the parameters that train, through a
# generator expression bound just before the call, and an actor and a critic's parameters
# chained (`itertools.chain` under an alias), with `grad` imported from `torch.autograd`.
from itertools import chain as chained

import torch
from torch.autograd import grad


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


def adapt(model, loss_fn, x, y, lr):
    loss = loss_fn(model(x), y)
    trainable = (p for p in model.parameters() if p.requires_grad)
    grads = _autograd_grad(loss, list(trainable), create_graph=True)
    return [p - lr * g for p, g in zip(model.parameters(), grads)]


def joint_gradient(actor, critic, loss):
    return torch.autograd.grad(outputs=loss, inputs=list(chained(actor.parameters(), critic.parameters())), allow_unused=True)


def penalty(critic, states, weights):
    values = critic(states)
    return _autograd_grad(values.sum(), [w for w in weights.values()], create_graph=True)
