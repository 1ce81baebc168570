# settings: assume_compiled=true
# Generators made lists, the calls not wrapped: gradients that may be None (`allow_unused=True`,
# an actor's and a critic's parameters chained), batched gradients, a positional None (torch
# before 2.15 refuses None crossing into nonstrict_trace).
import itertools

import torch


def joint_gradient(actor, critic, loss):
    return torch.autograd.grad(loss, list(itertools.chain(actor.parameters(), critic.parameters())), allow_unused=True)


def batched_vjp(model, outputs, basis):
    return torch.autograd.grad(outputs, list(model.parameters()), basis, is_grads_batched=True)


def positional_none(model, loss):
    return torch.autograd.grad(loss, list(model.parameters()), None, True)
