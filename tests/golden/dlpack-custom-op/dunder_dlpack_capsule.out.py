import torch


@torch.library.custom_op("dlpack_custom_op_dunder_dlpack_capsule_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return torch.from_dlpack(tensor.__dlpack__()).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


@torch.compile
def round_trip(x):
    y = _dlpack_round_trip(x + 1)
    return y * 2
