import torch


class Cache(torch.nn.Module):
    def forward(self, x, path: str):
        if x.numel() > 4:
            state = torch.load(path)
            x = x + state
        return x


cache = torch.compile(Cache())
