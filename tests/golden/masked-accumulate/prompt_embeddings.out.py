# settings: site_lines=25,26,27
# Segment Anything's prompt encoder (kornia's and MONAI's copies have the same lines): a learned
# embedding added to the points of each label, where a run saw the breaks. Writing a number
# through the mask alone traces, and is left as it is.
import torch
from torch import nn


class PromptEncoder(nn.Module):
    def __init__(self, embed_dim=8):
        super().__init__()
        self.not_a_point_embed = nn.Embedding(1, embed_dim)
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, embed_dim) for _ in range(2)])
        self.proj = nn.Linear(2, embed_dim)

    def _embed_points(self, points, labels, pad):
        points = points + 0.5
        if pad:
            padding_point = torch.zeros((points.shape[0], 1, 2), device=points.device)
            padding_label = -torch.ones((labels.shape[0], 1), device=labels.device)
            points = torch.cat([points, padding_point], dim=1)
            labels = torch.cat([labels, padding_label], dim=1)
        point_embedding = self.proj(points)
        point_embedding[labels == -1] = 0.0
        point_embedding.index_put_(
            (labels == -1,),
            torch.as_tensor(self.not_a_point_embed.weight, dtype=point_embedding.dtype, device=point_embedding.device),
            accumulate=True,
        )
        point_embedding.index_put_(
            (labels == 0,),
            torch.as_tensor(self.point_embeddings[0].weight, dtype=point_embedding.dtype, device=point_embedding.device),
            accumulate=True,
        )
        point_embedding.index_put_(
            (labels == 1,),
            torch.as_tensor(self.point_embeddings[1].weight, dtype=point_embedding.dtype, device=point_embedding.device),
            accumulate=True,
        )
        return point_embedding
