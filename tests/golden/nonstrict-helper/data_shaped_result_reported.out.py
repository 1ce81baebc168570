# settings: site_lines=11,16,22 called_lines=11,16,22
# Helpers a run saw break whose results' shapes the data decides: non-strict tracing stops inside
# them whatever they return (GB0036 in the wrapper, GB0251 at the call), so they are reported, not
# wrapped. A neighbour list's counts per central atom (torchani's triples), a detector's boxes
# above a score, and a count of pairs repeated index by index.
import torch


def _unique_and_counts(sorted_flat_idxs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    if torch.compiler.is_compiling():
        return torch.unique(sorted_flat_idxs, return_counts=True)
    return torch.unique_consecutive(sorted_flat_idxs, return_counts=True)


def keep_confident(boxes: torch.Tensor, scores: torch.Tensor, threshold: float):
    keep = (scores > threshold).nonzero().squeeze(1)
    return boxes.index_select(0, keep), scores.index_select(0, keep)


def pair_owner(counts: torch.Tensor) -> torch.Tensor:
    pair_sizes = (counts * (counts - 1)).div(2, rounding_mode="floor")
    return torch.repeat_interleave(pair_sizes)


@torch._dynamo.nonstrict_trace
def scaled(x: torch.Tensor) -> torch.Tensor:
    torch._dynamo.graph_break()
    return x * 2


@torch.compile
def triples(indices: torch.Tensor, boxes: torch.Tensor, scores: torch.Tensor):
    sorted_idxs, _ = indices.view(-1).sort()
    central, counts = _unique_and_counts(sorted_idxs)
    kept_boxes, kept_scores = keep_confident(boxes, scores, 0.5)
    owners = pair_owner(counts)
    return central.sum() + kept_boxes.sum() + kept_scores.sum() + owners.sum() + scaled(kept_scores).sum()
