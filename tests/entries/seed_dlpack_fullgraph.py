"""Seed 000's program as its report writes it: the factory compiles the model itself, with
`fullgraph=True, dynamic=True`, and Dynamo cannot trace `torch._C._to_dlpack`."""

import torch
import torch.nn as nn


class MyModel(nn.Module):
    def forward(self, x):
        if x.dtype == torch.bool:
            # bool path: go through uint8 + dlpack roundtrip and back to bool
            x_uint8 = x.to(torch.uint8)
            dlpack = torch.utils.dlpack.to_dlpack(x_uint8)
            converted = torch.utils.dlpack.from_dlpack(dlpack)
            return converted.bool()
        else:
            # non-bool path: direct dlpack roundtrip
            dlpack = torch.utils.dlpack.to_dlpack(x)
            return torch.utils.dlpack.from_dlpack(dlpack)


def my_model_function():
    return torch.compile(MyModel(), fullgraph=True, dynamic=True)


def GetInput():
    return torch.rand(4, 4) > 0.5
