import torch

scaler = torch.amp.GradScaler("cpu")


def train_step(model, opt, x):
    loss = _train_step_part1(model, x)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return loss


@torch.compile
def _train_step_part1(model, x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    return loss
