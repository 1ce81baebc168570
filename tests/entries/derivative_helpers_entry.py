"""A physics-informed network's residual through differential operators written as module-level
helpers (the form of torchphysics' `grad` and `laplacian`, the latter taking an already computed
gradient that defaults to `None`), and an attribution's input gradient through a helper handed
the forward function (the form of captum's `compute_gradients`). Each takes gradients with
`torch.autograd.grad`, where Dynamo breaks unless `trace_autograd_ops` is on."""

import torch
from torch import nn


def grad(model_out, *derivative_variable):
    gradients = []
    for variable in derivative_variable:
        gradients.append(torch.autograd.grad(model_out.sum(), variable, create_graph=True)[0])
    return torch.cat(gradients, dim=-1)


def laplacian(model_out, *derivative_variable, grad=None):
    total = torch.zeros_like(model_out)
    for variable in derivative_variable:
        first = grad if grad is not None else torch.autograd.grad(model_out.sum(), variable, create_graph=True)[0]
        for i in range(variable.shape[1]):
            second = torch.autograd.grad(first[:, i].sum(), variable, create_graph=True)[0]
            total = total + second[:, i : i + 1]
    return total


def compute_gradients(forward_fn, inputs, target_ind=None):
    with torch.enable_grad():
        outputs = forward_fn(inputs)
        selected = outputs if target_ind is None else outputs[:, target_ind]
        return torch.autograd.grad(selected.sum(), inputs)[0]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.Sequential(nn.Linear(2, 12), nn.Tanh(), nn.Linear(12, 1))
        self.classifier = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 4))

    def forward(self, points, source, features):
        with torch.enable_grad():
            u = self.u(points)
            residual = laplacian(u, points) + source
            flux = grad(u, points)
            saliency = compute_gradients(self.classifier, features, 2)
        return residual.square().mean() + flux.square().mean() + saliency.abs().mean()


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(9, 2).requires_grad_(), torch.randn(9, 1), torch.randn(5, 3).requires_grad_()
