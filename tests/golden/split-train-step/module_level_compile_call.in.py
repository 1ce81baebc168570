import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(model.parameters())


def train_step(x, y):
    out = model(x)
    loss = (out - y).abs().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.detach()


step = torch.compile(train_step, mode="max-autotune")
