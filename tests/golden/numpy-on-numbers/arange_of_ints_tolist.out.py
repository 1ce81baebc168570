# settings: unsafe_fixes=true assume_compiled=true
# call: dice(torch.ones(2, 3, 4, 4), torch.ones(2, 3, 4, 4), False); dice(torch.ones(2, 3, 4), torch.zeros(2, 3, 4), True)
import torch


def dice(input: torch.Tensor, target: torch.Tensor, batch: bool):
    # monai's losses list the spatial axes through a tensor of Python numbers.
    reduce_axis: list[int] = list(range(2, len(input.shape)))
    if batch:
        reduce_axis = [0] + reduce_axis
    return (input * target).sum(dim=reduce_axis)


def last_axes(x: torch.Tensor, scores: torch.Tensor):
    # Left alone: a dtype makes floats, and an argument read from a tensor's values is not a
    # Python number.
    axes = torch.arange(1, x.dim(), dtype=torch.float32).tolist()
    picks = torch.arange(int(scores.argmax())).tolist()
    return axes, picks
