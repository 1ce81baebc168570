import torch
from torch import nn


@torch.compiler.disable
def _deferred_print(*args):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(*args)


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print)


@torch.compiler.disable
def _deferred_print_loss(loss):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(f"loss {loss.item():.4f}")


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_loss)


class Train(nn.Module):
    def forward(self, x, target):
        loss = (x - target).pow(2).mean()
        _deferred_print_loss(loss)
        kept = x.sum().item()
        _deferred_print("sum", kept)
        return loss * kept


train = torch.compile(Train())
