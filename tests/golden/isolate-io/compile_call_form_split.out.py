# call: fast_loss(torch.ones(3), torch.zeros(3))
import torch


def loss(pred, target):
    diff = _loss_part1(pred, target)
    print("computing loss")
    return _loss_part2(diff)


@torch.compile(fullgraph=True, dynamic=False)
def _loss_part1(pred, target):
    diff = pred - target
    return diff


@torch.compile(fullgraph=True, dynamic=False)
def _loss_part2(diff):
    return (diff ** 2).mean()


fast_loss = loss
