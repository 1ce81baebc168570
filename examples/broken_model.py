"""A small model whose compiled forward loses its graphs to three unresumable graph breaks.

Run `graphweld fix --diff examples/` to see the fixes, or `python examples/broken_model.py` to
count what torch.compile captures (before fixing: the frame is skipped, 0 graphs).
"""

import torch
from torch import nn


class NamedScope:
    """Tags a block with a name (a stand-in for a tracing or profiling scope).

    Dynamo traces it, but cannot resume after a graph break inside it.
    """

    active = []

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        NamedScope.active.append(self.name)
        return self

    def __exit__(self, *exc):
        NamedScope.active.pop()
        return False


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 16)
        self.decoder = nn.Linear(16, 4)

    def forward(self, x):
        with NamedScope("encode"):
            h = self.encoder(x).relu()
            torch._dynamo.graph_break()  # e.g. a call Dynamo cannot trace
            h = h * 2
        for scale in (0.5, 2.0):
            h = h * scale
            print("scaled by", scale)
        try:
            out = self.decoder(h)
            torch._dynamo.graph_break()
            return out.softmax(dim=-1)
        except RuntimeError as error:
            raise ValueError(f"decoder failed: {error}") from error


def my_model_function():
    torch.manual_seed(0)
    return TinyNet()


def GetInput():
    return torch.randn(2, 8)


compiled = torch.compile(my_model_function())


if __name__ == "__main__":
    from torch._dynamo.utils import counters

    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model, x = my_model_function(), GetInput()
    expected = model(x)
    result = torch.compile(model, backend=counting_backend)(x)
    skipped = counters["frames"]["total"] - counters["frames"]["ok"]
    print(f"graphs captured: {len(graphs)}, skipped frames: {skipped}, same output: {torch.equal(result, expected)}")
