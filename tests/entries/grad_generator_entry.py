"""Gradients taken with respect to a generator of parameters: a trust-region policy update's
Fisher-vector product (skrl's TRPO, tianshou's NPG), `torch.autograd.grad(kl,
policy.parameters(), create_graph=True)` and again for the Hessian-vector product, and a
meta-learning inner step over the parameters that train, through a generator expression. Dynamo
cannot hand a generator to the eager call at the break, and gives up on both functions."""

import torch
from torch import nn


def fisher_vector_product(policy, states, vector, damping=0.1):
    logits = policy(states)
    kl = (logits.softmax(-1) * (logits.log_softmax(-1) - logits.detach().log_softmax(-1))).sum(-1).mean()
    kl_gradient = torch.autograd.grad(kl, policy.parameters(), create_graph=True)
    flat_kl_gradient = torch.cat([gradient.view(-1) for gradient in kl_gradient])
    hessian_vector = torch.autograd.grad((flat_kl_gradient * vector).sum(), policy.parameters())
    return torch.cat([gradient.reshape(-1) for gradient in hessian_vector]) + damping * vector


def adapted_loss(learner, x, y, lr=0.1):
    loss = (learner(x) - y).square().mean()
    trainable = (p for p in learner.parameters() if p.requires_grad)
    grads = torch.autograd.grad(loss, trainable, create_graph=True)
    w, b = (p - lr * g for p, g in zip(learner.parameters(), grads))
    return (torch.nn.functional.linear(x, w, b) - y).square().mean()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
        self.learner = nn.Linear(4, 1)

    def forward(self, states, vector, x, y):
        with torch.enable_grad():
            direction = fisher_vector_product(self.policy, states, vector)
            return direction.square().sum() + adapted_loss(self.learner, x, y)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    count = sum(p.numel() for p in my_model_function().policy.parameters())
    return torch.randn(5, 4), torch.randn(count), torch.randn(8, 4), torch.randn(8, 1)
