import torch


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Model(torch.nn.Module):
    def forward(self, x):
        with Ctx():
            a = x.sin()
        torch._dynamo.graph_break()
        with Ctx():
            b = a.cos()
        torch._dynamo.graph_break()
        with Ctx():
            if self.training:
                return b
            return -b


model = torch.compile(Model())
