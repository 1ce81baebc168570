import torch


@torch.compile(fullgraph=True)
def step(x):
    loss = (x * 2).sum()
    loss.backward()
    return loss


x = torch.arange(4.0, requires_grad=True)
print(step(x).detach(), x.grad)
