# settings: assume_compiled=true site_lines=13
# PyTorch Geometric's Cluster-GCN and Chebyshev convolutions: a graph's self-loops weighed, a
# value per loop from the degrees (where a run saw the break: the code alone does not show the
# weights are a tensor), and one taken off through a mask bound before.
import torch


def cluster_gcn_weights(edge_index, num_nodes, diag_lambda):
    row, col = edge_index
    deg = torch.zeros(num_nodes).scatter_add_(0, col, torch.ones(col.numel()))
    deg_inv = 1.0 / deg.clamp(min=1)
    edge_weight = deg_inv[col]
    edge_weight[row == col] += diag_lambda * deg_inv
    return edge_weight


def laplacian_weights(edge_index: torch.Tensor, edge_weight: torch.Tensor) -> torch.Tensor:
    loop_mask = edge_index[0] == edge_index[1]
    edge_weight[loop_mask] -= 1
    return edge_weight
