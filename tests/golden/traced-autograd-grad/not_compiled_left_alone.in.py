# Nothing compiles this function, and nothing says it is compiled: left alone (eager code takes
# generators happily).
import torch


def natural_gradient(policy, loss):
    return torch.autograd.grad(loss, policy.parameters())
