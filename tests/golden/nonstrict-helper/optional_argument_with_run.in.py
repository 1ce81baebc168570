# settings: site_lines=14,23 called_lines=14,23
# A run saw both helpers break: they are rewritten though they may receive None, and the run
# measures the calls as they are (`scaled` leaves its default alone and traces whole on any torch;
# `roc_compute` is passed None, which torch 2.15 takes and torch 2.13 breaks at).
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
