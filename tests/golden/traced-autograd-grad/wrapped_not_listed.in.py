# settings: assume_compiled=true
# Wrapped, nothing made a list: the inputs are a tensor (a gradient penalty's interpolates), a list
# already, a name whose binding is not shown to be a generator, a generator name used again before
# the call; left alone: arguments after a `*args`, whose positions are unknown.
import torch


def gradient_penalty(critic, interpolates):
    scores = critic(interpolates)
    (gradients,) = torch.autograd.grad(scores.sum(), interpolates, create_graph=True)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def listed(model, loss):
    return torch.autograd.grad(loss, list(model.parameters()))


def given(loss, params):
    return torch.autograd.grad(loss, params)


def counted(model, loss):
    params = model.parameters()
    count = sum(1 for _ in params)
    return torch.autograd.grad(loss, params), count


def forwarded(model, *args):
    return torch.autograd.grad(*args, model.parameters())
