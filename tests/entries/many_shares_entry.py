"""Four branches whose untaken side cannot be computed (an integer division by zero): at each,
branch-to-where (computing both sides) fails and branch-to-cond, the next fix, verifies."""

import torch
import torch.nn as nn


class Shares(nn.Module):
    def forward(self, counts, total):
        if total > 0:
            first = counts // total
        else:
            first = counts * 0
        if total > 1:
            second = counts // total
        else:
            second = counts * 0
        if total > 2:
            third = counts // total
        else:
            third = counts * 0
        if total > 3:
            fourth = counts // total
        else:
            fourth = counts * 0
        return first + second + third + fourth


def my_model_function():
    return Shares()


def GetInput():
    # Nothing counted yet: no branch may divide.
    return (torch.randint(0, 10, (4,)), torch.tensor(0))
