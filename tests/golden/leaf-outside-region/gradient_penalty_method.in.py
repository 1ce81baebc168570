# A critic's gradient penalty (WGAN-GP's form) in a compiled method: the interpolated samples
# are detached and marked in the middle of the function, then scored.
import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    @torch.compile
    def interpolated_scores(self, real, fake, alpha):
        mixed = (alpha * real + (1 - alpha) * fake).detach()
        mixed.requires_grad_()
        scores = self.net(mixed)
        return mixed, scores
