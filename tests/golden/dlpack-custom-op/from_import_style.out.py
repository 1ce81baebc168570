"""Round trip written with from-imports and an alias."""
import torch
from torch.utils.dlpack import from_dlpack as import_tensor
from torch.utils.dlpack import to_dlpack


@torch.library.custom_op("dlpack_custom_op_from_import_style_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return import_tensor(to_dlpack(tensor)).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


class Passthrough(torch.nn.Module):
    def forward(self, x):
        out = _dlpack_round_trip(x.contiguous())
        return out * 3


model = torch.compile(Passthrough(), dynamic=True)
