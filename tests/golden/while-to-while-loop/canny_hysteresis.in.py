# settings: unsafe_fixes=true assume_compiled=true
# call: run(0); run(1)
import torch
import torch.nn.functional as F


def _hysteresis_step(edges: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    neighbours = F.conv2d(edges, kernel, padding=1)
    return torch.where((edges == 0.5) & (neighbours >= 1), torch.ones_like(edges), edges)


def hysteresis(edges: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    edges_old = -torch.ones_like(edges)
    while ((edges_old - edges).abs() != 0).any():
        edges_old = edges
        edges = _hysteresis_step(edges, kernel)
    return edges


def run(seed):
    torch.manual_seed(seed)
    edges = torch.randint(0, 3, (2, 1, 12, 12)).float() * 0.5
    return hysteresis(edges, torch.ones(1, 1, 3, 3))
