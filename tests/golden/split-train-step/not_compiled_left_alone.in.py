import torch


def train_step(model, optimizer, x):
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    return loss
