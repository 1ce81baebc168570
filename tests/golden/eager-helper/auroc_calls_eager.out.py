# settings: site_lines=23 disabled_call_lines=23
import torch


@torch.compiler.disable
def roc_curve(preds, target):
    """False and true positive rates at each distinct threshold (torchmetrics' `_binary_roc_compute`)."""
    order = torch.argsort(preds, descending=True)
    preds, target = preds[order], target[order]
    distinct = torch.where(preds[1:] - preds[:-1])[0]
    ends = torch.cat([distinct, torch.tensor([target.numel() - 1])])
    tps = torch.cumsum(target, dim=0)[ends]
    fps = 1 + ends - tps
    zero = torch.zeros(1)
    return torch.cat([zero, fps / fps[-1]]), torch.cat([zero, tps / tps[-1]])


def area(fpr, tpr):
    return torch.trapezoid(tpr, fpr)


@torch.compiler.disable
def binary_auroc(preds, target):
    fpr, tpr = roc_curve(preds.sigmoid(), target)
    return area(fpr, tpr)


@torch.compile
def scored_auroc(logits, target):
    return binary_auroc(logits * 2, target)
