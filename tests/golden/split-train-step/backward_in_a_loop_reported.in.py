import torch


@torch.compile
def train_steps(model, optimizer, batches):
    for batch in batches:
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
    return loss
