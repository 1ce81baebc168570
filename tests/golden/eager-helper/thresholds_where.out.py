# settings: site_lines=12
import torch
import torch.nn.functional as F


@torch.compiler.disable
def binary_clf_curve(preds, target):
    """False and true positives at each distinct threshold (torchmetrics' curve helper)."""
    order = torch.argsort(preds, descending=True)
    preds = preds[order]
    target = target[order]
    # Indices where the score changes, and the end of the curve.
    distinct = torch.where(preds[1:] - preds[:-1])[0]
    threshold_idxs = F.pad(distinct, [0, 1], value=target.size(0) - 1)
    tps = torch.cumsum(target, dim=0)[threshold_idxs]
    fps = 1 + threshold_idxs - tps
    return fps, tps, preds[threshold_idxs]


@torch.compile
def auroc(preds, target):
    fps, tps, _ = binary_clf_curve(preds, target)
    return torch.trapezoid(tps / tps[-1], fps / fps[-1])
