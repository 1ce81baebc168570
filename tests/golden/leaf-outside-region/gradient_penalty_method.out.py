# A critic's gradient penalty (WGAN-GP's form) in a compiled method: the interpolated samples
# are detached and marked in the middle of the function, then scored.
import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def interpolated_scores(self, real, fake, alpha):
        mixed = self._interpolated_scores_part1(alpha, fake, real)
        mixed.requires_grad_()
        return self._interpolated_scores_part2(mixed)

    @torch.compile
    def _interpolated_scores_part1(self, alpha, fake, real):
        mixed = (alpha * real + (1 - alpha) * fake).detach()
        return mixed

    @torch.compile
    def _interpolated_scores_part2(self, mixed):
        scores = self.net(mixed)
        return mixed, scores
