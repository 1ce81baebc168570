# settings: unsafe_fixes=true assume_compiled=true
# call: normalize(torch.tensor([[2.0, -1.0]]), "sigmoid"); normalize(torch.tensor([[0.2, 0.8]]), "softmax")
import torch


def normalize(tensor: torch.Tensor, normalization: str):
    # torchmetrics' logits check: the value taken is chosen by a Python option.
    tensor = torch.where(
        torch.logical_not(torch.all((tensor >= 0) * (tensor <= 1))),
        tensor.sigmoid() if normalization == "sigmoid" else torch.softmax(tensor, dim=1),
        tensor,
    )
    return tensor
