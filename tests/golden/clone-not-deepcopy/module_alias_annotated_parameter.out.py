# settings: unsafe_fixes=true assume_compiled=true
# The module imported under another name; an annotated tensor parameter; the copy passed on
# directly (a target kept before the estimate is modified).
import copy as cp

import torch


def td_target(values: torch.Tensor, rewards: torch.Tensor, gamma: float):
    target = rewards + gamma * values.detach().clone()
    values.mul_(0.5)
    return target, values
