# settings: unsafe_fixes=true
# A forward's nested helper stacks pairwise products and asks whether it was given a sized
# collection; the pairs come from `zip` written in the call (a pairwise interaction layer's form).
import torch
from torch import nn


class Pairwise(nn.Module):
    def forward(self, a, b):
        def stack(items):
            if hasattr(items, "__len__"):
                return torch.stack([x * y for x, y in items])
            return torch.stack([x * y for x, y in list(items)])

        return stack(list(zip(a.unbind(0), b.unbind(0))))


model = torch.compile(Pairwise())
