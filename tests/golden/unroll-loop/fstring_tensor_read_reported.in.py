import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = x
        for step in range(2):
            h = self.linear(h)
            print(f"step {step}: {h.abs().mean().item():.4f}")
        for step in range(2):
            h = self.linear(h)
            print(f"at step {step}: mean {float(h.mean())}")
        return h


model = torch.compile(Model())
