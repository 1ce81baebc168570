# call: first_above(torch.tensor([0.5, 3.0])); first_above(torch.tensor([0.1, 0.2]))
import torch


@torch.compile
def first_above(x):
    def _loop_body(threshold):
        print("checking", threshold)
        if threshold < 3:
            return ("return", x * threshold)
    _flow = _loop_body(4)
    if _flow is None:
        _flow = _loop_body(2)
    if _flow is None:
        _flow = _loop_body(1)
    if _flow is not None:
        return _flow[1]
    return None
