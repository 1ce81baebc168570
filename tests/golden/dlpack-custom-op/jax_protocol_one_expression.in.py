import jax
import jax.numpy as jnp
import torch


@torch.compile
def soft_clip(x):
    y = x * 3
    return torch.from_dlpack(jnp.tanh(jax.dlpack.from_dlpack(y))) + 1
