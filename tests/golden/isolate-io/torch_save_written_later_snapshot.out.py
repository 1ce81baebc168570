import torch
from torch import nn


@torch.compiler.disable
def _deferred_torch_save(*args):
    """graphweld isolate-io: `torch.save`, run after the compiled graph."""
    torch.save(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_torch_save)


class Recorder(nn.Module):
    def forward(self, x, path):
        h = x * 2
        _deferred_torch_save(h.detach().clone(), path)
        h.mul_(2)
        return h + 1


recorder = torch.compile(Recorder())
