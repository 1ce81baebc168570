"""An attribution whose layer activations come from a method the program runs eagerly
(`torch.compiler.disable`: captum runs its hooked forward so), its gradient taken in the compiled
forward, which also prints twice. The gradient's `nonstrict_trace` wrapper is refused there (GB0251:
the activations' history lies outside the graph), so it buys nothing; the prints'
fix does, more than the wrapper costs."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 6)
        self.head = nn.Linear(6, 2)

    @torch.compiler.disable
    def activations(self, x):
        hidden = self.layer(x)
        return self.head(hidden.tanh()), hidden

    def forward(self, x):
        with torch.enable_grad():
            scores, hidden = self.activations(x)
            print("scores of", scores.shape[1], "classes")
            grads = torch.autograd.grad(torch.unbind(scores[:, 1]), (hidden,))
            print("attributing a batch of", x.shape[0])
            return (grads[0] * hidden).sum(-1)


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    torch.manual_seed(1)
    return (torch.randn(3, 4),)
