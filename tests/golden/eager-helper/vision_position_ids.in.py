import torch
from torch import nn


def vision_position_ids(grid_thw: torch.Tensor, merge_size: int):
    """Row and column ids of each patch, in merge-block order (Qwen2-VL's vision helpers)."""
    position_ids = []
    for t, h, w in grid_thw.tolist():
        rows, cols = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        block = (h // merge_size, merge_size, w // merge_size, merge_size)
        rows = rows.reshape(block).transpose(1, 2).flatten()
        cols = cols.reshape(block).transpose(1, 2).flatten()
        position_ids.append(torch.stack([rows, cols], dim=-1).repeat(t, 1))
    return torch.cat(position_ids, dim=0)


class VisionTower(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rotary = nn.Embedding(64, dim)

    def forward(self, patches, grid_thw):
        ids = vision_position_ids(grid_thw, 2)
        return patches + self.rotary(ids).sum(dim=1)


tower = torch.compile(VisionTower(8))
