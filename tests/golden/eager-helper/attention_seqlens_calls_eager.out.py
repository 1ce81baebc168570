# settings: site_lines=21 disabled_call_lines=21
import torch
import torch.nn.functional as F
from torch import nn


@torch.compiler.disable
def vision_cu_seqlens(grid_thw):
    """Cumulative patch counts, one segment per frame (transformers' `get_vision_cu_seqlens`)."""
    seqlens = torch.repeat_interleave(grid_thw[:, 1] * grid_thw[:, 2], grid_thw[:, 0])
    return F.pad(seqlens.cumsum(dim=0, dtype=torch.int32), (1, 0), value=0)


def longest_segment(cu_seqlens):
    return (cu_seqlens[1:] - cu_seqlens[:-1]).max()


@torch.compiler.disable
def vision_attention_seqlens(grid_thw):
    """Cumulative and maximum lengths for packed vision attention (`get_vision_attention_seqlens`):
    all it does besides the eager call is one reduction, so it is worth running eagerly too."""
    cu_seqlens = vision_cu_seqlens(grid_thw)
    return cu_seqlens, longest_segment(cu_seqlens)


class VisionTower(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, patches, grid_thw):
        cu_seqlens, longest = vision_attention_seqlens(grid_thw)
        positions = torch.arange(patches.shape[0], dtype=cu_seqlens.dtype)
        segment = torch.searchsorted(cu_seqlens[1:], positions, right=True)
        same = segment[:, None] == segment[None, :]
        scores = (self.proj(patches) @ patches.T).masked_fill(~same, float("-inf"))
        return scores.softmax(dim=-1) @ patches + longest


tower = torch.compile(VisionTower(8))
