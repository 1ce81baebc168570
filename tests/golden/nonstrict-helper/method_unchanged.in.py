import torch


class Model(torch.nn.Module):
    def helper(self, x):
        torch._dynamo.graph_break()
        return x * 2

    def forward(self, x):
        return self.helper(x) + 1


model = torch.compile(Model())
