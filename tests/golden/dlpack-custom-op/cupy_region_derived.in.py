import cupy
import torch


@torch.compile(fullgraph=True)
def absolute_on_gpu(x):
    y = x * 2
    capsule = torch.utils.dlpack.to_dlpack(y)
    array = cupy.fromDlpack(capsule)
    array = cupy.abs(array)
    out = torch.utils.dlpack.from_dlpack(array.toDlpack())
    return out + 1
