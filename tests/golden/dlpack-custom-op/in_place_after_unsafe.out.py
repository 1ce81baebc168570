# settings: unsafe_fixes=true
import torch


@torch.library.custom_op("dlpack_custom_op_in_place_after_unsafe_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(tensor)).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


@torch.compile
def bump(x):
    y = _dlpack_round_trip(x)
    y.add_(1)
    return x, y
