# settings: unsafe_fixes=true site_lines=9
# A nested helper of a compiled scorer divides by the largest score and subtracts the smallest
# (a ranking head's normalisation); both reductions were read through Python lists.
import torch


def score(features: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    def normalise(scores):
        top, bottom = scores.detach().max(), scores.detach().min()
        return (scores - bottom) / (top - bottom)

    return normalise(features @ weight)


compiled_score = torch.compile(score)
