import torch
from model import Net

torch.manual_seed(0)
model = torch.compile(Net())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(4, 8)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item())
