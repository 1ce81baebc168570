import jax
import jax.numpy as jnp
import torch


@torch.library.custom_op("dlpack_custom_op_jax_protocol_one_expression_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return torch.from_dlpack(jnp.tanh(jax.dlpack.from_dlpack(tensor))).clone(memory_format=torch.contiguous_format)


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    torch._check(
        tensor.is_floating_point(),
        lambda: "_dlpack_round_trip: the fake kernel keeps the shape and dtype of floating-point inputs only",
    )
    return torch.empty_like(tensor, memory_format=torch.contiguous_format)


@torch.compile
def soft_clip(x):
    y = x * 3
    return _dlpack_round_trip(y) + 1
