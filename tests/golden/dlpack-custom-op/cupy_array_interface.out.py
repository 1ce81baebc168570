import cupy as cp
import torch


@torch.library.custom_op("dlpack_custom_op_cupy_array_interface_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    arr = cp.asarray(tensor)
    arr = cp.abs(arr)
    return torch.as_tensor(arr, device="cuda").clone(memory_format=torch.contiguous_format)


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor, device="cuda", memory_format=torch.contiguous_format)


@torch.compile
def scaled_abs(x):
    return _dlpack_round_trip(x) + 1
