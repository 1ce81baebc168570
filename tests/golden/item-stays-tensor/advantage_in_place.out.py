# settings: unsafe_fixes=true site_lines=10,11
# A policy update centres and scales its advantages with numbers read from them, in place (an
# actor-critic library's normalisation), in a compiled function.
import torch


@torch.compile
def normalised_advantages(returns: torch.Tensor, values: torch.Tensor, eps: float = 1e-8):
    advantages = returns - values
    mean = advantages.mean().detach().reshape(())
    scale = advantages.std().detach().reshape(())
    advantages -= mean
    advantages /= scale + eps
    return advantages
