import torch


@torch.compile(dynamic=False)
def train_step(model, batch):
    x, y = batch
    if not hasattr(model, "optimizer"):
        model.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    model.optimizer.step()
    return loss
