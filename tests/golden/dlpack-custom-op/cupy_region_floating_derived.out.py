import cupy
import torch


@torch.library.custom_op("dlpack_custom_op_cupy_region_floating_derived_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    capsule = torch.utils.dlpack.to_dlpack(tensor)
    array = cupy.fromDlpack(capsule)
    array = cupy.sqrt(array)
    return torch.utils.dlpack.from_dlpack(array.toDlpack()).clone(memory_format=torch.contiguous_format)


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    torch._check(
        tensor.is_floating_point(),
        lambda: "_dlpack_round_trip: the fake kernel keeps the shape and dtype of floating-point inputs only",
    )
    return torch.empty_like(tensor, memory_format=torch.contiguous_format)


@torch.compile(fullgraph=True)
def sqrt_on_gpu(x):
    return _dlpack_round_trip(x)
