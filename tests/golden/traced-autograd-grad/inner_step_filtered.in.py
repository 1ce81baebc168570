# settings: assume_compiled=true
# A meta-learning inner step: the gradient taken only for the parameters that train, through a
# generator expression bound just before the call, and an actor and a critic's parameters
# chained (`itertools.chain` under an alias), with `grad` imported from `torch.autograd`.
from itertools import chain as chained

import torch
from torch.autograd import grad


def adapt(model, loss_fn, x, y, lr):
    loss = loss_fn(model(x), y)
    trainable = (p for p in model.parameters() if p.requires_grad)
    grads = grad(loss, trainable, create_graph=True)
    return [p - lr * g for p, g in zip(model.parameters(), grads)]


def joint_gradient(actor, critic, loss):
    return torch.autograd.grad(outputs=loss, inputs=chained(actor.parameters(), critic.parameters()), allow_unused=True)


def penalty(critic, states, weights):
    values = critic(states)
    return torch.autograd.grad(values.sum(), (w for w in weights.values()), create_graph=True)
