import torch
import torch.nn.functional as F


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = _train_step_part1(model, x, y)
    loss.backward()
    optimizer.step()
    return loss


@torch.compile
def _train_step_part1(model, x, y):
    loss = F.mse_loss(model(x), y)
    return loss
