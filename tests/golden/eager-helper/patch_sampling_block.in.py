# settings: site_lines=28,29,53,67 called_lines=28,29,53,67
# ViLT's visual embedding: the patch embedding (a layer's work) and the sampling of a fixed number
# of patches per image over the mask (nonzero, unique, multinomial). A run saw Dynamo break in the
# sampling; only that part runs eagerly, the patch embedding stays compiled.
import torch
from torch import nn


class VisualEmbed(nn.Module):
    def __init__(self, channels=3, dim=8, patch=2):
        super().__init__()
        self.projection = nn.Conv2d(channels, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))

    def forward(self, pixel_values, pixel_mask):
        return self.visual_embed(pixel_values, pixel_mask)

    def visual_embed(self, pixel_values, pixel_mask, max_image_length=6):
        x = self.projection(pixel_values)
        batch_size, num_channels, height, width = x.shape
        x_mask = nn.functional.interpolate(pixel_mask[:, None].float(), size=(height, width)).long()
        x_mask = x_mask.flatten(1)
        x = x.flatten(2).transpose(1, 2)

        # sample max_image_length patches of each image, valid ones first
        effective_resolution = x_mask.sum(1)
        max_image_length = min(effective_resolution.max(), max_image_length)
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


class LayerTakenFirst(nn.Module):
    # A layer taken from `self` first: the helper is not run eagerly whole; the selection moves.
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, x):
        return self.pick(x)

    def pick(self, x):
        score = self.score
        keep = x.sum(-1).nonzero().view(-1)
        return score(x[keep])


class ItemOfALayerList(nn.Module):
    # `self.blocks[i](...)` runs a layer: the helper is not run eagerly whole; the counts move.
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])

    def forward(self, x, lengths):
        return self.step(x, lengths)

    def step(self, x, lengths):
        counts = lengths.tolist()
        for i, block in enumerate(self.blocks):
            x = self.blocks[i](x)
        return x, counts
