# settings: unsafe_fixes=true site_lines=10
# A depth estimator's error averaged over the pixels whose target is finite (invalid pixels are
# inf in the ground truth), with the mask from torch.isfinite.
import torch


@torch.compile
def masked_l1(prediction, target):
    valid = torch.isfinite(target)
    return (torch.where(valid, (prediction - target).abs(), 0).sum() / valid.sum())
