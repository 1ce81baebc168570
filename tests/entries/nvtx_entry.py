"""NVTX ranges around the stages of a forward. On a CUDA build they are real; a CPU build has no
NVTX (it raises even eagerly), so here it is stood in for as a CUDA build behaves: each call
returns a number, which Dynamo cannot put in a graph."""

import torch
from torch import nn

if not torch.cuda.is_available():

    class _NvtxStandIn:
        @staticmethod
        def rangePushA(message):
            return 0

        @staticmethod
        def rangePop():
            return 0

        @staticmethod
        def markA(message):
            return None

    torch.cuda.nvtx._nvtx = _NvtxStandIn()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        torch.cuda.nvtx.range_push("encoder")
        h = self.encoder(x).relu()
        torch.cuda.nvtx.range_pop()
        with torch.cuda.nvtx.range("head"):
            out = self.head(h)
        return out


def my_model_function():
    torch.manual_seed(0)
    return Model()


def GetInput():
    return torch.randn(4, 8)
