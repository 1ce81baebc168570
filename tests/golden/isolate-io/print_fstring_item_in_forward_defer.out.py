import torch
from torch import nn


@torch.compiler.disable
def _deferred_print_hidden_norm(norm):
    """graphweld isolate-io: `print`, run after the compiled graph."""
    print(f"hidden norm: {norm.item():.3f}")


torch._dynamo.config.reorderable_logging_functions.add(_deferred_print_hidden_norm)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        h = self.linear(x)
        _deferred_print_hidden_norm(h.norm())
        return h.relu()


model = torch.compile(Model())
