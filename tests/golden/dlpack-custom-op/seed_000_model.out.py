import torch
import torch.nn as nn


@torch.library.custom_op("dlpack_custom_op_seed_000_model_in::dlpack_round_trip", mutates_args=())
def _dlpack_round_trip(tensor: torch.Tensor) -> torch.Tensor:
    """A DLPack round trip as a custom op, opaque to torch.compile (graphweld dlpack-custom-op)."""
    return torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(tensor)).clone()


@_dlpack_round_trip.register_fake
def _dlpack_round_trip_fake(tensor):
    return torch.empty_like(tensor)


class MyModel(nn.Module):
    def forward(self, x):
        if x.dtype == torch.bool:
            # bool path: go through uint8 + dlpack roundtrip and back to bool
            x_uint8 = x.to(torch.uint8)
            converted = _dlpack_round_trip(x_uint8)
            return converted.bool()
        else:
            # non-bool path: direct dlpack roundtrip
            return _dlpack_round_trip(x)


def my_model_function():
    return MyModel()


def GetInput():
    # bool tensor, shape [2], to exercise the bool branch
    return torch.rand(2).bool()
