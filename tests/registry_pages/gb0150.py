import torch


def collate(values):
    # Duck-typing: branch on whether we can cheaply get a length.
    if hasattr(values, "__len__"):
        return torch.zeros(len(values))
    return torch.zeros(1)


@torch.compile(fullgraph=True)
def fn(x):
    # `map(...)` is a lazy iterator that Dynamo cannot inspect, so the
    # `hasattr` call inside `collate` breaks the graph.
    doubled = map(lambda v: v * 2, [1.0, 2.0, 3.0])
    return x + collate(doubled).sum()


print(fn(torch.arange(3.0)))
