# settings: site_lines=9
import torch as th
from torch import nn


def remove_self_loops(edge_index, edge_attr=None):
    """Drop the edges from a node to itself (torch_geometric's graph utility)."""
    mask = edge_index[0] != edge_index[1]
    edge_index = edge_index[:, mask]
    if edge_attr is not None:
        edge_attr = edge_attr[mask]
    return edge_index, edge_attr


class GraphConv(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, edge_index):
        edge_index, _ = remove_self_loops(edge_index)
        messages = self.lin(x)[edge_index[0]]
        return x.index_add(0, edge_index[1], messages)


conv = th.compile(GraphConv(4))
