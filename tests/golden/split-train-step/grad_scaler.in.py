import torch

scaler = torch.amp.GradScaler("cpu")


@torch.compile
def train_step(model, opt, x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    return loss
