# settings: site_lines=27 called_lines=27 disabled_call_lines=27
import torch
from torch import nn


class Metric(nn.Module):
    """A metric's forward updates its state and computes the batch's value (torchmetrics'
    `Metric._forward_reduce_state_update`): `compute` runs eagerly, `update` is the metric's work,
    so the method that calls both stays compiled."""

    def __init__(self):
        super().__init__()
        self.total = torch.zeros(())
        self.count = torch.zeros(())

    def update(self, preds, target):
        self.total = self.total + (preds.argmax(-1) == target).sum()
        self.count = self.count + target.numel()

    @torch.compiler.disable
    def compute(self):
        return self.total / self.count

    def _forward_reduce_state_update(self, preds, target):
        total, count = self.total, self.count
        self.update(preds, target)
        batch_value = self.compute()
        self.total, self.count = total + self.total, count + self.count
        return batch_value

    def forward(self, preds, target):
        return self._forward_reduce_state_update(preds, target)


metric = torch.compile(Metric())
