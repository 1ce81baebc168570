# settings: unsafe_fixes=true site_lines=17
# Node classification on a graph (PyTorch Geometric's and DGL's examples): the loss over the
# training nodes, whose mask is an attribute of the data; a run saw the selection break.
import torch
import torch.nn.functional as F
from torch import nn


class NodeClassifier(nn.Module):
    def __init__(self, features=6, classes=3):
        super().__init__()
        self.layer = nn.Linear(features, classes)

    def forward(self, data):
        adjacency = data.adjacency / data.adjacency.sum(-1, keepdim=True)
        logits = self.layer(adjacency @ data.x)
        return F.cross_entropy(logits[data.train_mask], data.y[data.train_mask])


model = torch.compile(NodeClassifier())
