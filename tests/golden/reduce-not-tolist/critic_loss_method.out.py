# settings: unsafe_fixes=true site_lines=17
# A policy update's method: the critic's per-sample losses summed into a Python number and added
# to a penalty (an RL search's form), compiled as a module.
import torch
from torch import nn


class Update(nn.Module):
    def __init__(self):
        super().__init__()
        self.critic = nn.Linear(4, 1)

    def forward(self, states: torch.Tensor, lengths: torch.Tensor):
        losses = (self.critic(states).squeeze(-1) - 1.0) ** 2
        delete_loss = 0.5
        # The per-sample losses as one number.
        loss = losses.detach().sum() + delete_loss
        return loss * lengths.float().mean()


update = torch.compile(Update())
