import torch


def train_step(model, batch):
    x, y = batch
    if not hasattr(model, "optimizer"):
        model.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.optimizer.zero_grad()
    loss = _train_step_part1(model, x, y)
    loss.backward()
    model.optimizer.step()
    return loss


@torch.compile(dynamic=False)
def _train_step_part1(model, x, y):
    loss = ((model(x) - y) ** 2).mean()
    return loss
