import torch


def train_step(model, optimizer, scheduler, batch, step, accumulation=4):
    loss = _train_step_part1(accumulation, batch, model)
    loss.backward()
    if (step + 1) % accumulation == 0:
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    print("step", step, "loss", loss.item())
    return loss


@torch.compile
def _train_step_part1(accumulation, batch, model):
    loss = model(batch).pow(2).mean() / accumulation
    return loss
