import torch

STEPS = 3
total = 0


@torch.compile
def uses_global(x):
    for i in range(STEPS):
        global total
        total += 1
        torch._dynamo.graph_break()
    return x


@torch.compile
def too_long(x):
    for i in range(100):
        torch._dynamo.graph_break()
    return x


@torch.compile
def while_loop(x):
    while x.sum() > 0:
        x = x - 1
        torch._dynamo.graph_break()
    return x


class Base(torch.nn.Module):
    def forward(self, x):
        return x


class Child(Base):
    def forward(self, x):
        for i in range(2):
            x = super().forward(x)
            torch._dynamo.graph_break()
        return x


compiled = torch.compile(Child())
