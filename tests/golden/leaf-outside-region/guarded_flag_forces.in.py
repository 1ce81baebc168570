# An interatomic potential's energy (a force field's form): positions are marked only when they
# are not already, so that forces can be taken as the energy's gradient by the caller.
import torch


@torch.compile(fullgraph=True)
def energy(positions, charges):
    if not positions.requires_grad:
        positions.requires_grad = True
    distances = torch.cdist(positions, positions) + torch.eye(positions.shape[0])
    return (charges[:, None] * charges[None, :] / distances).triu(1).sum()
