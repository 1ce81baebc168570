import numpy as np
import torch
from torch import nn


@torch.library.custom_op("dlpack_custom_op_numpy_protocol_floating_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    arr = np.from_dlpack(tensor)
    arr = np.tanh(arr) * 2.0
    return torch.from_dlpack(arr).clone(memory_format=torch.contiguous_format)


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    torch._check(
        tensor.is_floating_point(),
        lambda: "_dlpack_round_trip: the fake kernel keeps the shape and dtype of floating-point inputs only",
    )
    return torch.empty_like(tensor, memory_format=torch.contiguous_format)


class Squash(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        # NumPy takes the tensor by the DLPack protocol, no capsule.
        y = _dlpack_round_trip(h.detach())
        return y + h


model = torch.compile(Squash())
