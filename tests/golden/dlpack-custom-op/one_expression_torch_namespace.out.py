import torch


@torch.library.custom_op("dlpack_custom_op_one_expression_torch_namespace_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return torch.from_dlpack(torch.to_dlpack(tensor)).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


@torch.compile(fullgraph=True, dynamic=True)
def scale_through_dlpack(x):
    y = x * 2
    return _dlpack_round_trip(y) + 1
