import torch


def stack_halves(x):
    parts = []
    parts.append(x[: x.shape[0] // 2])
    parts.append(x[x.shape[0] // 2 :])
    torch._dynamo.graph_break()
    cache = {"first": parts[0]}
    cache["second"] = parts[1]
    return torch.stack([cache["first"], cache["second"]])


@torch.compile
def run(x):
    return stack_halves(x) * 2
