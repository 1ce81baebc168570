# call: fast_loss(torch.ones(3), torch.zeros(3))
import torch


def loss(pred, target):
    diff = pred - target
    print("computing loss")
    return (diff ** 2).mean()


fast_loss = torch.compile(loss, fullgraph=True, dynamic=False)
