import torch
from torch import nn

f = "module-level"


class Edge(nn.Module):
    def forward(self, x, it):
        print(next(it), next(it))
        with open("/dev/null") as f:
            print(f"file {f}", x.sum())
        return x


edge = torch.compile(Edge())
