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
    return MyModel()


def GetInput():
    # bool tensor, shape [2], to exercise the bool branch
    return torch.rand(2).bool()
