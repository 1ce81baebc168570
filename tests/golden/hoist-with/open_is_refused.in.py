import torch


@torch.compile
def fn(x, path):
    with open(path, "w") as handle:
        handle.write("start\n")
        torch._dynamo.graph_break()
        handle.write("end\n")
    return x + 1
