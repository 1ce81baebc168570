# settings: assume_compiled=true
# A natural-gradient update's flat gradient (the form of tianshou's NPG): the parameters handed
# positionally, the rest of the call's keywords passed through `**kwargs`.
import torch
from torch import nn


class NaturalGradient:
    def _flat_grad(self, y: torch.Tensor, model: nn.Module, **kwargs) -> torch.Tensor:
        grads = torch.autograd.grad(y, model.parameters(), **kwargs)
        return torch.cat([grad.reshape(-1) for grad in grads])
