# settings: assume_compiled=true
# A natural-gradient update's flat gradient (the form of tianshou's NPG): the parameters handed
# positionally, the rest of the call's keywords passed through `**kwargs`.
import torch
from torch import nn


@torch._dynamo.nonstrict_trace
def _autograd_grad(*args, **kwargs):
    """torch.autograd.grad, traced into the caller's graph (graphweld traced-autograd-grad)."""
    return torch.autograd.grad(*args, **kwargs)


class NaturalGradient:
    def _flat_grad(self, y: torch.Tensor, model: nn.Module, **kwargs) -> torch.Tensor:
        grads = _autograd_grad(y, list(model.parameters()), **kwargs)
        return torch.cat([grad.reshape(-1) for grad in grads])
