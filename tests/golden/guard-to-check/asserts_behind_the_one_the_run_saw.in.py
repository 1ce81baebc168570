# settings: unsafe_fixes=true site_lines=14 data_dependent_lines=14
# piq's input check (piq/utils/common.py): Dynamo stops at the first assert on a value, in a loop,
# and skips the frame, so no run sees the assert after it on the same tensor.
import torch


def validate_input(tensors, data_range=(0.0, -1.0)):
    x = tensors[0]
    for t in tensors:
        assert torch.is_tensor(t), f"Expected torch.Tensor, got {type(t)}"
        assert t.device == x.device, f"Expected tensors to be on {x.device}, got {t.device}"
        assert t.size() == x.size(), f"Expected tensors with same size, got {t.size()} and {x.size()}"
        if data_range[0] < data_range[1]:
            assert data_range[0] <= t.min(), \
                f"Expected values to be greater or equal to {data_range[0]}, got {t.min()}"
            assert t.max() <= data_range[1], \
                f"Expected values to be lower or equal to {data_range[1]}, got {t.max()}"


def ssim_like(x, y):
    validate_input([x, y], data_range=(0.0, 1.0))
    return (x * y).mean()
