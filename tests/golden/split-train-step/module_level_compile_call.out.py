import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(model.parameters())


def train_step(x, y):
    loss = _train_step_part1(x, y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return _train_step_part2(loss)


@torch.compile(mode="max-autotune")
def _train_step_part1(x, y):
    out = model(x)
    loss = (out - y).abs().mean()
    return loss


@torch.compile(mode="max-autotune")
def _train_step_part2(loss):
    return loss.detach()


step = train_step
