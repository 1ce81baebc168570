from torch.utils.dlpack import from_dlpack, to_dlpack
from torch import compile as compile_fn
import torch


@torch.library.custom_op("dlpack_custom_op_adds_torch_import_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return from_dlpack(to_dlpack(tensor)).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


def roundtrip(x):
    return _dlpack_round_trip(x)


fast = compile_fn(roundtrip)
