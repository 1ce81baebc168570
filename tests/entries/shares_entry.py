"""A branch whose untaken side cannot be computed: `torch.where` computes both sides, so the
integer division by zero raises; `torch.cond` runs only the side the value takes."""

import torch
import torch.nn as nn


class Shares(nn.Module):
    def forward(self, counts, total):
        if total > 0:
            share = counts // total
        else:
            share = counts * 0
        return share + 1


def my_model_function():
    return Shares()


def GetInput():
    # Nothing counted yet: the branch must not divide.
    return (torch.randint(0, 10, (4,)), torch.tensor(0))
