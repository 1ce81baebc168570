# settings: unsafe_fixes=true site_lines=16 data_dependent_lines=16
# speechbrain's SSIM loss (speechbrain/lobes/models/FastSpeech2.py), its messages in parentheses:
# the assert on the maximum is behind the one on the minimum, where the run saw Dynamo stop.
# A check on the tensor's number of dimensions, which Dynamo decides while tracing, is left alone.
import torch


def _validate_input(tensors, dim_range=(0, -1), data_range=(0.0, -1.0), size_range=None):
    if not __debug__:
        return

    x = tensors[0]

    for t in tensors:
        if data_range[0] < data_range[1]:
            assert data_range[0] <= t.min(), (
                f"Expected values to be greater or equal to {data_range[0]}, got {t.min()}"
            )
            assert t.max() <= data_range[1], (
                f"Expected values to be lower or equal to {data_range[1]}, got {t.max()}"
            )
        assert t.dim() >= dim_range[0], f"Expected at least {dim_range[0]} dimensions, got {t.dim()}"


def ssim_loss(x, y):
    _validate_input([x, y], dim_range=(4, 5), data_range=(0, 1.0))
    return 1 - (x * y).mean()
