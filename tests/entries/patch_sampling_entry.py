"""ViLT's visual embedding, small: a patch embedding (a convolution, the layer's work) and the
sampling of a fixed number of patches per image over the pixel mask (`nonzero`, `unique`, a
list of masked selections, `torch.multinomial`). Dynamo breaks in the sampling (data-dependent
shapes), and the helper also runs the patch embedding, so it may not run eagerly whole."""

import torch
from torch import nn


class VisualEmbed(nn.Module):
    def __init__(self, channels=3, dim=8, patch=2):
        super().__init__()
        self.projection = nn.Conv2d(channels, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.head = nn.Linear(dim, 4)

    def forward(self, pixel_values, pixel_mask):
        return self.head(self.visual_embed(pixel_values, pixel_mask)).mean(1)

    def visual_embed(self, pixel_values, pixel_mask, max_image_length=6):
        x = self.projection(pixel_values)
        batch_size, num_channels, height, width = x.shape
        x_mask = nn.functional.interpolate(pixel_mask[:, None].float(), size=(height, width)).long()
        x_mask = x_mask.flatten(1)
        x = x.flatten(2).transpose(1, 2)

        valid_idx = x_mask.nonzero(as_tuple=False)
        unique_rows = valid_idx[:, 0].unique()
        valid_row_idx = [valid_idx[valid_idx[:, 0] == u] for u in unique_rows]
        select = []
        for i, rows in enumerate(valid_row_idx):
            choice = torch.multinomial(torch.ones(rows.size(0)).float(), max_image_length)
            select.append(rows[choice])
        select = torch.cat(select, dim=0)

        x = x[select[:, 0], select[:, 1]].view(batch_size, -1, num_channels)
        cls_tokens = self.cls_token.expand(batch_size, -1, -1)
        return torch.cat((cls_tokens, x), dim=1)


def my_model_function():
    torch.manual_seed(0)
    return VisualEmbed()


def GetInput():
    torch.manual_seed(0)
    mask = torch.ones(2, 8, 8, dtype=torch.long)
    mask[1, 6:, :] = 0
    return torch.randn(2, 3, 8, 8), mask
