"""Gradients taken in a compiled model's methods, where no helper can be traced whole: a
trust-region policy update's Fisher-vector product (skrl's TRPO, tianshou's NPG),
`torch.autograd.grad(kl, self.policy.parameters(), create_graph=True)` and again for the
Hessian-vector product, a meta-learning inner step over the parameters that train through a
generator expression, and an interatomic potential's forces as the negative gradient of its energy
in `forward`. Dynamo breaks at every call, and cannot hand a generator to the eager call at the
break: it gives up on the methods."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 3))
        self.learner = nn.Linear(4, 1)
        self.energy = nn.Sequential(nn.Linear(3, 8), nn.SiLU(), nn.Linear(8, 1))

    def fisher_vector_product(self, states, vector, damping=0.1):
        logits = self.policy(states)
        kl = (logits.softmax(-1) * (logits.log_softmax(-1) - logits.detach().log_softmax(-1))).sum(-1).mean()
        kl_gradient = torch.autograd.grad(kl, self.policy.parameters(), create_graph=True)
        flat_kl_gradient = torch.cat([gradient.view(-1) for gradient in kl_gradient])
        hessian_vector = torch.autograd.grad((flat_kl_gradient * vector).sum(), self.policy.parameters())
        return torch.cat([gradient.reshape(-1) for gradient in hessian_vector]) + damping * vector

    def adapted_loss(self, x, y, lr=0.1):
        loss = (self.learner(x) - y).square().mean()
        trainable = (p for p in self.learner.parameters() if p.requires_grad)
        grads = torch.autograd.grad(loss, trainable, create_graph=True)
        w, b = (p - lr * g for p, g in zip(self.learner.parameters(), grads))
        return (torch.nn.functional.linear(x, w, b) - y).square().mean()

    def forward(self, states, vector, x, y, positions):
        with torch.enable_grad():
            direction = self.fisher_vector_product(states, vector)
            energy = self.energy(positions).sum()
            forces = -torch.autograd.grad(energy, positions, create_graph=True)[0]
            return direction.square().sum() + self.adapted_loss(x, y) + energy + forces.square().sum()


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    count = sum(p.numel() for p in my_model_function().policy.parameters())
    return torch.randn(5, 4), torch.randn(count), torch.randn(8, 4), torch.randn(8, 1), torch.randn(6, 3).requires_grad_()
