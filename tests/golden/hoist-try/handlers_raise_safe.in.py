import torch


class ShapeError(Exception):
    pass


@torch.compile
def fn(x):
    try:
        y = x.view(-1, 2)
        torch._dynamo.graph_break()
        z = y.sum(dim=1)
    except RuntimeError as exc:
        raise ShapeError(str(exc)) from exc
    except (ValueError, TypeError):
        return None
    return z
