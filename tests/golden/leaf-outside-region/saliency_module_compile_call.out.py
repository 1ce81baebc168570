# A saliency map: the compiled function marks the input image so that the caller can read the
# class score's gradient with respect to it (compiled by a module-level call, with options).
import torch
from torch import nn

classifier = nn.Sequential(nn.Flatten(), nn.Linear(12, 3))


def class_scores(images: torch.Tensor) -> torch.Tensor:
    """The classifier's scores, with the images' gradient kept."""
    images.requires_grad_(True)
    return _class_scores_part1(images)


@torch.compile(dynamic=False)
def _class_scores_part1(images):
    scores = classifier(images)
    return scores.softmax(dim=-1)


compiled_scores = class_scores
