"""A point-prompt encoder as Segment Anything writes it: a learned embedding added to the points
of each label through a boolean mask (`point_embedding[labels == -1] += weight`), and angles
wrapped into [0, 2 pi) the same way. Reading the selected elements has a shape known only from
the mask's values (GB0036): Dynamo breaks the graph at each update."""

import math

import torch
from torch import nn


class PromptEncoder(nn.Module):
    def __init__(self, embed_dim=8):
        super().__init__()
        self.proj = nn.Linear(2, embed_dim)
        self.not_a_point_embed = nn.Embedding(1, embed_dim)
        self.point_embeddings = nn.ModuleList([nn.Embedding(1, embed_dim) for _ in range(2)])

    def forward(self, points, labels):
        point_embedding = self.proj(points + 0.5)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.weight
        point_embedding[labels == 0] += self.point_embeddings[0].weight
        point_embedding[labels == 1] += self.point_embeddings[1].weight
        angles = torch.atan2(points[..., 1], points[..., 0])
        angles[angles < 0] += 2.0 * math.pi
        return point_embedding * angles[..., None]


def my_model_function():
    torch.manual_seed(0)
    return PromptEncoder()


def GetInput():
    torch.manual_seed(0)
    return torch.randn(2, 5, 2), torch.tensor([[1, -1, 0, 1, 0], [-1, 1, 1, 0, -1]])
