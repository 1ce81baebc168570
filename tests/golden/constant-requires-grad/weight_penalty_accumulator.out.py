# settings: unsafe_fixes=true
# call: run(torch.linspace(-1, 1, 12).reshape(4, 3), torch.linspace(0, 1, 8).reshape(4, 2))
import torch
from torch import nn


class PenalizedRegression(nn.Module):
    """A regression whose loss adds an L1 penalty on the weights, summed from zero."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))

    def forward(self, inputs, targets):
        loss = nn.functional.mse_loss(self.net(inputs), targets)
        l1_penalty = torch.tensor(0.)
        for name, parameter in self.net.named_parameters():
            if "weight" in name:
                l1_penalty = l1_penalty + parameter.abs().sum()
        return loss + 1e-3 * l1_penalty


def run(inputs, targets):
    torch.manual_seed(0)
    return PenalizedRegression()(inputs, targets)


step = torch.compile(PenalizedRegression())
