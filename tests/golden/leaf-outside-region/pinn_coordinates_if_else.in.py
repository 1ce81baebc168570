# A physics-informed network's collocation points (a PINN solver's form): both coordinates are
# marked on one line, the time coordinate only while training, before the network runs.
import torch


@torch.compile(dynamic=False)
def predict(net, x, t, training: bool):
    x.requires_grad_(True); t.requires_grad_(True)
    if training:
        t.requires_grad = True
    else:
        t.requires_grad_(False)
    return net(torch.stack([x, t], dim=-1))
