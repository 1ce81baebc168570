# settings: assume_compiled=true
# call: (torch.manual_seed(0), TileRouter()(torch.randn(1, 4, 4, 4)))[1]; (torch.manual_seed(1), TileRouter((1, 2))(torch.randn(2, 4, 2, 6)))[1]
# A spatial mixture of experts routes each tile of a grid: the tile's row and column unpacked
# from the grid's index pairs, read as slice bounds and in a branch's test.
import torch
from torch import nn


class TileRouter(nn.Module):
    def __init__(self, grid=(2, 2)):
        super().__init__()
        self.grid = grid
        self.experts = nn.ModuleList(nn.Conv2d(4, 4, 1) for _ in range(grid[0] * grid[1]))

    def forward(self, x):
        th, tw = x.shape[2] // self.grid[0], x.shape[3] // self.grid[1]
        out = torch.zeros_like(x)
        for row, col in torch.cartesian_prod(torch.arange(self.grid[0]), torch.arange(self.grid[1])):
            tile = x[:, :, row * th:(row + 1) * th, col * tw:(col + 1) * tw]
            if row == col:
                tile = tile * 2
            out[:, :, row * th:(row + 1) * th, col * tw:(col + 1) * tw] = self.experts[row * self.grid[1] + col](tile)
        return out
