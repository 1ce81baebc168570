import torch


@torch.compile
def train_step(model, optimizer, scheduler, batch, step, accumulation=4):
    loss = model(batch).pow(2).mean() / accumulation
    loss.backward()
    if (step + 1) % accumulation == 0:
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    print("step", step, "loss", loss.item())
    return loss
