# nonstrict_trace cannot take None before torch 2.15 (GB0236 at every call that passes it): without
# a run to measure the calls, a helper that may receive it, by its default or its annotation
# (torchmetrics' `thresholds: Optional[Tensor]`), is reported.
from typing import Optional

import torch


def roc_compute(state: tuple[torch.Tensor, torch.Tensor], thresholds: Optional[torch.Tensor], pos_label: int = 1):
    preds, target = state
    if thresholds is None:
        order = torch.argsort(preds, descending=True)
        torch._dynamo.graph_break()
        return preds[order], target[order]
    return preds, target


def scaled(x: torch.Tensor, scale=None):
    if scale is None:
        scale = 2.0
    torch._dynamo.graph_break()
    return x * scale


@torch.compile
def auroc(preds: torch.Tensor, target: torch.Tensor):
    fpr, tpr = roc_compute((preds, target), None)
    return scaled(fpr).sum() + tpr.sum()
